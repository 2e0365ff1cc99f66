// SPDX-License-Identifier: Apache-2.0
// Test doubles for the measuring commands without MPI or a GPU: a World of one process, and a host
// backend whose ranks all live in this process (send/recv matched at group_end), which can be told to
// fail every send of one size so that a test sees what a command does with a failing point.
#pragma once

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "backend/host_data.h"
#include "core/error.h"
#include "launch/world.h"

namespace pipebench::testing {

class OneProcessWorld final : public World {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  int local_rank() const override { return 0; }
  int local_size() const override { return 1; }
  const std::string& host() const override { return host_; }
  bool has_mpi() const override { return false; }
  std::string mpi_version() const override { return "none (test)"; }
  void barrier() const override {}
  double max(double v) const override { return v; }
  double min(double v) const override { return v; }
  std::uint64_t sum(std::uint64_t v) const override { return v; }
  std::uint64_t min_u64(std::uint64_t v) const override { return v; }
  bool all(bool ok) const override { return ok; }
  std::vector<std::string> all_gather(const std::string& s) const override { return {s}; }
  std::string broadcast(const std::string& bytes, int) const override { return bytes; }
  [[noreturn]] void abort(int exit_code) const override { std::_Exit(exit_code); }

 private:
  std::string host_ = "testhost";
};

class LoopbackBackend final : public Backend {
 public:
  // nranks ranks, all local. Every send of exactly fail_bytes bytes throws (0: none does).
  LoopbackBackend(int nranks, std::size_t fail_bytes) : nranks_(nranks), fail_bytes_(fail_bytes) {}

  std::string_view name() const override { return "mpi"; }
  BackendKind kind() const override { return BackendKind::kMpi; }
  int nranks() const override { return nranks_; }
  int nlocal() const override { return nranks_; }
  int rank_of(int local) const override { return local; }
  int global_rank(int comm_rank) const override { return comm_rank; }
  std::size_t free_memory_bytes() const override { return std::size_t{1} << 30; }
  std::vector<DeviceDescription> devices() const override {
    std::vector<DeviceDescription> d;
    for (int r = 0; r < nranks_; ++r) d.push_back({r, -1, "", "host"});
    return d;
  }
  std::map<std::string, std::string> versions() const override { return {}; }
  bool supports_graphs() const override { return false; }

  std::unique_ptr<Buffers> allocate(std::size_t send_bytes, std::size_t recv_bytes, const BufferOptions&) override {
    return std::make_unique<HostBuffers>(nranks_, send_bytes, recv_bytes);
  }
  void group_begin() override {  // what a failed group left behind is dropped
    sends_.clear();
    recvs_.clear();
  }
  void group_end() override {
    for (const auto& r : recvs_) {
      for (auto s = sends_.begin(); s != sends_.end(); ++s) {
        if (s->from == r.peer && s->to == r.local) {
          std::memcpy(r.buf, s->buf, s->bytes);
          sends_.erase(s);
          break;
        }
      }
    }
    recvs_.clear();
    if (!sends_.empty()) throw Error("loopback: a send without its recv");
  }
  // Every call completes at group_end: the handle is done at once.
  std::unique_ptr<PendingComm> group_end_async() override {
    struct Done final : PendingComm {
      bool test() override { return true; }
      void wait() override {}
    };
    group_end();
    return std::make_unique<Done>();
  }
  void all_reduce(int, const void*, void*, std::size_t, DType, RedOp) override { unsupported(); }
  void all_gather(int, const void*, void*, std::size_t, DType) override { unsupported(); }
  void reduce_scatter(int, const void*, void*, std::size_t, DType, RedOp) override { unsupported(); }
  void broadcast(int, const void*, void*, std::size_t, DType, int) override { unsupported(); }
  void all_to_all(int, const void*, void*, std::size_t, DType) override { unsupported(); }
  void reduce(int, const void*, void*, std::size_t, DType, RedOp, int) override { unsupported(); }
  void gather(int, const void*, void*, std::size_t, DType, int) override { unsupported(); }
  void scatter(int, const void*, void*, std::size_t, DType, int) override { unsupported(); }
  void send(int local, const void* buf, std::size_t count, DType t, int peer) override {
    const std::size_t bytes = count * dtype_size(t);
    if (fail_bytes_ != 0 && bytes == fail_bytes_) throw Error("injected failure at " + std::to_string(bytes) + " B");
    sends_.push_back({local, peer, buf, bytes});
  }
  void recv(int local, void* buf, std::size_t count, DType t, int peer) override {
    recvs_.push_back({local, peer, buf, count * dtype_size(t)});
  }
  void synchronize() override {}
  std::unique_ptr<Batch> prepare_batch(std::function<void()> issue_one, int ops, bool) override {
    return std::make_unique<TimedBatch>(std::move(issue_one), ops);
  }
  void fill(const Buffers& b, int local, const FillRegion& r, const Pattern& p, DType t) override {
    host_fill(r.buffer == BufferRole::kSend ? b.send(local) : b.recv(local), r, p, t);
  }
  std::uint64_t count_wrong(const Buffers& b, int local, const CheckRegion& r, const Pattern& p, DType t) override {
    return host_count_wrong(b.recv(local), r, p, t);
  }
  std::unique_ptr<Backend> split(const std::vector<int>&) override { unsupported(); }

 private:
  class HostBuffers final : public Buffers {
   public:
    HostBuffers(int n, std::size_t s, std::size_t r) : send_(n, std::vector<char>(s)), recv_(n, std::vector<char>(r)) {}
    void* send(int local) const override { return const_cast<char*>(send_[local].data()); }
    void* recv(int local) const override { return const_cast<char*>(recv_[local].data()); }
    std::size_t send_bytes() const override { return send_.front().size(); }
    std::size_t recv_bytes() const override { return recv_.front().size(); }

   private:
    std::vector<std::vector<char>> send_, recv_;
  };
  class TimedBatch final : public Batch {
   public:
    TimedBatch(std::function<void()> issue_one, int ops) : issue_one_(std::move(issue_one)), ops_(ops) {}
    BatchTime run() override {
      const auto t0 = std::chrono::steady_clock::now();
      for (int i = 0; i < ops_; ++i) issue_one_();
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      return {s, s};
    }

   private:
    std::function<void()> issue_one_;
    int ops_;
  };
  struct Send {
    int from, to;
    const void* buf;
    std::size_t bytes;
  };
  struct Recv {
    int local, peer;
    void* buf;
    std::size_t bytes;
  };
  [[noreturn]] static void unsupported() { throw Error("loopback: only send/recv"); }

  int nranks_;
  std::size_t fail_bytes_;
  std::vector<Send> sends_;
  std::vector<Recv> recvs_;
};

}  // namespace pipebench::testing
