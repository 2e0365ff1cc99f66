// SPDX-License-Identifier: Apache-2.0
// MpiBackend. NCCL semantics are kept where MPI differs: aliased buffers become MPI_IN_PLACE, an
// in-place reduce_scatter leaves rank r's block at offset r (MPI leaves it at 0: it is moved after
// completion), and half/bfloat16 reductions use user-defined MPI ops.
#include "backend/mpi_backend.h"

#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <sched.h>
#include <time.h>
#include <unistd.h>

#include <chrono>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "backend/host_data.h"
#include "backend/mpi_types.h"
#include "backend/mpi_wait.h"
#include "core/error.h"
#include "launch/mpi_check.h"

namespace pipebench {
namespace {

// Open MPI's host collectives take a temporary buffer of the message's size per call (libnbc's in-place
// MPI_Iallreduce, the tuned MPI_Allreduce), and glibc serves an allocation of 32 MiB or more from fresh
// mmap'd pages, unmapped on free: each call faults in and zeroes its buffer again, where a GPU reduces in
// memory it already holds. 204 MB of float on 2 ranks of a 2-core VM: MPI_Iallreduce took 712 ms in place
// and 82 ms out of place, MPI_Allreduce 598 and 627 ms (`run`'s word-embedding all-reduce, in place: 658 to
// 915 ms from one run to the next). With freed memory kept in the heap and never trimmed, so that the
// next call reuses it warm: 64 and 62 ms, 29 and 42 ms. The process's peak is unchanged, and the heap's free
// memory goes back to the system whenever the backend's own buffers are freed (return_free_heap).
void keep_freed_memory_mapped() {
#ifdef __GLIBC__
  mallopt(M_MMAP_MAX, 0);
  mallopt(M_TRIM_THRESHOLD, INT_MAX);
#endif
}

// Hands the heap's free memory back (glibc's malloc_trim) when buffers are freed (a sweep grows its buffers
// for a larger size, a replay ends), so that sizing the next points (host_available_bytes) does not count
// this process's freed memory as taken. Between those the calls' temporary buffers stay warm.
void return_free_heap() {
#ifdef __GLIBC__
  malloc_trim(0);
#endif
}

// Page-aligned host memory.
class HostBuffers final : public Buffers {
 public:
  HostBuffers(std::size_t send_bytes, std::size_t recv_bytes)
      : send_(alloc(send_bytes)), recv_(alloc(recv_bytes)), send_bytes_(send_bytes), recv_bytes_(recv_bytes) {}
  void* send(int) const override { return send_.get(); }
  void* recv(int) const override { return recv_.get(); }
  std::size_t send_bytes() const override { return send_bytes_; }
  std::size_t recv_bytes() const override { return recv_bytes_; }

 private:
  struct Free {
    void operator()(void* p) const {
      std::free(p);
      return_free_heap();
    }
  };
  using Ptr = std::unique_ptr<void, Free>;
  static Ptr alloc(std::size_t bytes) {
    const std::size_t rounded = ((bytes ? bytes : 1) + 4095) / 4096 * 4096;
    void* p = std::aligned_alloc(4096, rounded);
    if (!p) throw Error("aligned_alloc of " + std::to_string(rounded) + " bytes failed");
    std::memset(p, 0, rounded);  // touch the pages now, not inside a timed batch
    return Ptr(p);
  }
  Ptr send_, recv_;
  std::size_t send_bytes_, recv_bytes_;
};

std::size_t host_available_bytes() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  std::size_t kb = 0;
  std::string unit;
  while (in >> key >> kb >> unit) {
    if (key == "MemAvailable:") return kb * 1024;
  }
  return static_cast<std::size_t>(sysconf(_SC_AVPHYS_PAGES)) * static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
}

class MpiBackend;

// A group's requests and the steps that follow their completion (an in-place reduce_scatter's move), waited
// for with bench's MpiWaitPolicy.
class MpiPendingComm final : public PendingComm {
 public:
  MpiPendingComm(const World& world, std::vector<MPI_Request> requests, std::vector<std::function<void()>> after)
      : world_(world), waits_(world), requests_(std::move(requests)), after_(std::move(after)) {}
  ~MpiPendingComm() override {
    for (auto& r : requests_) {  // unwaited (an error unwinds the replay): nothing may write into freed buffers
      if (r != MPI_REQUEST_NULL) {
        MPI_Cancel(&r);
        MPI_Request_free(&r);
      }
    }
  }
  MpiPendingComm(const MpiPendingComm&) = delete;
  MpiPendingComm& operator=(const MpiPendingComm&) = delete;
  bool test() override {
    if (!done_ && MpiWaitPolicy::test(requests_.data(), static_cast<int>(requests_.size()), world_.where())) finish();
    return done_;
  }
  void wait() override {
    if (done_) return;
    waits_.wait(requests_.data(), static_cast<int>(requests_.size()), world_.where());
    finish();
  }

 private:
  void finish() {
    done_ = true;
    for (auto& f : after_) f();
    after_.clear();
  }
  const World& world_;
  MpiWaitPolicy waits_;
  std::vector<MPI_Request> requests_;
  std::vector<std::function<void()>> after_;
  bool done_ = false;
};

class MpiBatch final : public Batch {
 public:
  MpiBatch(const World& world, std::function<void()> issue, int ops)
      : world_(world), issue_(std::move(issue)), ops_(ops) {}
  // The calls complete as they are issued: the enqueue time is the elapsed time.
  BatchTime run() override {
    world_.barrier();
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < ops_; ++i) issue_();
    const auto t1 = std::chrono::steady_clock::now();
    const double s = std::chrono::duration<double>(t1 - t0).count();
    return {s, s};
  }

 private:
  const World& world_;
  std::function<void()> issue_;
  int ops_;
};

class MpiBackend final : public Backend {
 public:
  // comm: owned (freed in the destructor) unless MPI_COMM_NULL (this process holds no member).
  MpiBackend(const World& world, MPI_Comm comm, std::vector<int> members, std::shared_ptr<const MpiOps> ops)
      : world_(world), comm_(comm), members_(std::move(members)), ops_(std::move(ops)) {
    if (comm_ != MPI_COMM_NULL) {
      MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
      MPI_Comm_rank(comm_, &rank_);
      MPI_Comm_size(comm_, &size_);
    }
  }
  ~MpiBackend() override {
    if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
  }
  MpiBackend(const MpiBackend&) = delete;
  MpiBackend& operator=(const MpiBackend&) = delete;

  std::string_view name() const override { return "mpi"; }
  BackendKind kind() const override { return BackendKind::kMpi; }
  int nranks() const override { return static_cast<int>(members_.size()); }
  int nlocal() const override { return comm_ == MPI_COMM_NULL ? 0 : 1; }
  int rank_of(int) const override { return rank_; }
  int global_rank(int comm_rank) const override { return members_.at(static_cast<std::size_t>(comm_rank)); }
  std::size_t free_memory_bytes() const override {
    return host_available_bytes() / static_cast<std::size_t>(std::max(1, world_.local_size()));
  }
  std::vector<DeviceDescription> devices() const override {
    if (nlocal() == 0) return {};
    return {{world_.rank(), -1, "", "host memory"}};
  }
  std::map<std::string, std::string> versions() const override {
    std::map<std::string, std::string> v{{"mpi", world_.mpi_version()}};
    const std::string wait = waits_.description(world_);
    if (!wait.empty()) v["mpi_wait"] = wait;
    return v;
  }
  bool supports_graphs() const override { return false; }

  std::unique_ptr<Buffers> allocate(std::size_t send_bytes, std::size_t recv_bytes, const BufferOptions&) override {
    return std::make_unique<HostBuffers>(send_bytes, recv_bytes);
  }

  void group_begin() override { in_group_ = true; }
  void group_end() override {
    in_group_ = false;
    complete();
  }
  std::unique_ptr<PendingComm> group_end_async() override {
    in_group_ = false;
    auto pending = std::make_unique<MpiPendingComm>(world_, std::move(pending_), std::move(after_));
    pending_.clear();
    after_.clear();
    return pending;
  }

  void all_reduce(int, const void* send, void* recv, std::size_t count, DType t, RedOp op) override {
    posted(MPI_Iallreduce(send == recv ? MPI_IN_PLACE : send, recv, to_int(count), mpi_type(t), mpi_op(t, op), comm_,
                          slot()),
           "MPI_Iallreduce");
  }
  void all_gather(int, const void* send, void* recv, std::size_t count, DType t) override {
    const bool in_place = send == block_of(recv, rank_, count, t);
    posted(MPI_Iallgather(in_place ? MPI_IN_PLACE : send, to_int(count), mpi_type(t), recv, to_int(count), mpi_type(t),
                          comm_, slot()),
           "MPI_Iallgather");
  }
  void reduce_scatter(int, const void* send, void* recv, std::size_t count, DType t, RedOp op) override {
    if (block_of(send, rank_, count, t) != recv) {
      posted(MPI_Ireduce_scatter_block(send, recv, to_int(count), mpi_type(t), mpi_op(t, op), comm_, slot()),
             "MPI_Ireduce_scatter_block");
      return;
    }
    // MPI_IN_PLACE leaves the result at the start of the buffer; NCCL at offset rank*count.
    void* whole = const_cast<void*>(send);
    posted(MPI_Ireduce_scatter_block(MPI_IN_PLACE, whole, to_int(count), mpi_type(t), mpi_op(t, op), comm_, slot()),
           "MPI_Ireduce_scatter_block", [whole, recv, block = count * dtype_size(t)] {
             if (whole != recv) std::memmove(recv, whole, block);
           });
  }
  void broadcast(int, const void* send, void* recv, std::size_t count, DType t, int root) override {
    if (rank_ == root && send != recv) std::memcpy(recv, send, count * dtype_size(t));
    posted(MPI_Ibcast(recv, to_int(count), mpi_type(t), root, comm_, slot()), "MPI_Ibcast");
  }
  void all_to_all(int, const void* send, void* recv, std::size_t count, DType t) override {
    posted(MPI_Ialltoall(send, to_int(count), mpi_type(t), recv, to_int(count), mpi_type(t), comm_, slot()),
           "MPI_Ialltoall");
  }
  // MPI_IN_PLACE is the root's only: elsewhere the receive buffer is not significant (MPI 4.0 §6.9.1).
  void reduce(int, const void* send, void* recv, std::size_t count, DType t, RedOp op, int root) override {
    const void* in = rank_ == root && send == recv ? MPI_IN_PLACE : send;
    posted(MPI_Ireduce(in, recv, to_int(count), mpi_type(t), mpi_op(t, op), root, comm_, slot()), "MPI_Ireduce");
  }
  void gather(int, const void* send, void* recv, std::size_t count, DType t, int root) override {
    const bool in_place = rank_ == root && send == block_of(recv, rank_, count, t);
    posted(MPI_Igather(in_place ? MPI_IN_PLACE : send, to_int(count), mpi_type(t), recv, to_int(count), mpi_type(t),
                       root, comm_, slot()),
           "MPI_Igather");
  }
  void scatter(int, const void* send, void* recv, std::size_t count, DType t, int root) override {
    const bool in_place = rank_ == root && block_of(send, rank_, count, t) == recv;
    posted(MPI_Iscatter(send, to_int(count), mpi_type(t), in_place ? MPI_IN_PLACE : recv, to_int(count), mpi_type(t),
                        root, comm_, slot()),
           "MPI_Iscatter");
  }
  void send(int, const void* buf, std::size_t count, DType t, int peer) override {
    posted(MPI_Isend(buf, to_int(count), mpi_type(t), peer, 0, comm_, slot()), "MPI_Isend");
  }
  void recv(int, void* buf, std::size_t count, DType t, int peer) override {
    posted(MPI_Irecv(buf, to_int(count), mpi_type(t), peer, 0, comm_, slot()), "MPI_Irecv");
  }
  void synchronize() override { complete(); }

  std::unique_ptr<Batch> prepare_batch(std::function<void()> issue_one, int ops, bool graph) override {
    if (graph) throw UsageError("-G: CUDA graphs need the nccl backend");
    return std::make_unique<MpiBatch>(world_, std::move(issue_one), ops);
  }

  void fill(const Buffers& b, int local, const FillRegion& r, const Pattern& p, DType t) override {
    host_fill(r.buffer == BufferRole::kSend ? b.send(local) : b.recv(local), r, p, t);
  }
  std::uint64_t count_wrong(const Buffers& b, int local, const CheckRegion& r, const Pattern& p, DType t) override {
    return host_count_wrong(b.recv(local), r, p, t);
  }

  std::unique_ptr<Backend> split(const std::vector<int>& members) override {
    std::vector<int> global;
    bool member = false;
    for (int m : members) {
      global.push_back(global_rank(m));
      member = member || m == rank_;
    }
    MPI_Comm sub = MPI_COMM_NULL;
    if (comm_ != MPI_COMM_NULL) {
      // The smallest member names the group, so that disjoint lists give disjoint communicators.
      check(MPI_Comm_split(comm_, member ? members.front() : MPI_UNDEFINED, rank_, &sub), "MPI_Comm_split");
    }
    return std::make_unique<MpiBackend>(world_, sub, std::move(global), ops_);
  }

 private:
  void check(int rc, const char* call) const { check_mpi(rc, call, world_.where()); }
  static int to_int(std::size_t count) {
    if (count > static_cast<std::size_t>(INT_MAX)) {
      throw Error("the MPI backend takes at most " + std::to_string(INT_MAX) + " elements per call, got " +
                  std::to_string(count));
    }
    return static_cast<int>(count);
  }
  MPI_Op mpi_op(DType t, RedOp op) const { return ops_->get(t, op); }
  // Block `rank` (of count elements of t) of a buffer: where NCCL keeps a rank's part in place.
  static const void* block_of(const void* buffer, int rank, std::size_t count, DType t) {
    return static_cast<const char*>(buffer) + static_cast<std::size_t>(rank) * count * dtype_size(t);
  }
  // The request of the call being made, kept by posted() once the call returned.
  MPI_Request* slot() { return &pending_.emplace_back(MPI_REQUEST_NULL); }
  // Checks the call (a failed one leaves no request) and, outside a group, waits for it.
  void posted(int rc, const char* call, std::function<void()> after = {}) {
    if (rc != MPI_SUCCESS) pending_.pop_back();
    check(rc, call);
    if (after) after_.push_back(std::move(after));
    if (!in_group_) complete();
  }
  void complete() {
    if (!pending_.empty()) {
      waits_.wait(pending_.data(), static_cast<int>(pending_.size()), world_.where());
      pending_.clear();
    }
    for (auto& f : after_) f();
    after_.clear();
  }

  const World& world_;
  MpiWaitPolicy waits_{world_};
  MPI_Comm comm_;
  std::vector<int> members_;
  std::shared_ptr<const MpiOps> ops_;  // the reductions of every split
  int rank_ = 0, size_ = 0;
  bool in_group_ = false;
  std::vector<MPI_Request> pending_;
  std::vector<std::function<void()>> after_;
};

}  // namespace

std::unique_ptr<Backend> make_mpi_backend(const World& world) {
  keep_freed_memory_mapped();
  MPI_Comm comm = MPI_COMM_NULL;
  check_mpi(MPI_Comm_dup(MPI_COMM_WORLD, &comm), "MPI_Comm_dup", world.where());
  std::vector<int> members(static_cast<std::size_t>(world.size()));
  for (int i = 0; i < world.size(); ++i) members[static_cast<std::size_t>(i)] = i;
  return std::make_unique<MpiBackend>(world, comm, std::move(members), std::make_shared<MpiOps>());
}

}  // namespace pipebench
