// SPDX-License-Identifier: Apache-2.0
// ReplayRuntime on MPI: compute is a host sleep (clock_nanosleep to an absolute deadline, so ranks
// sharing cores still progress) during which the rank's asynchronous P2P keeps moving, P2P is
// Isend/Irecv on a private communicator with the transfer's tag, waits follow bench's MpiWaitPolicy,
// collectives run on MPI_Comm_split sub-communicators.
#include <mpi.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <time.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <map>
#include <vector>

#include "backend/mpi_types.h"
#include "backend/mpi_wait.h"
#include "backend/replay_runtime.h"
#include "core/error.h"
#include "launch/mpi_check.h"

namespace pipebench {
namespace {

// MPI counts are int; a message above INT_MAX bytes is sent as that many 4-byte elements.
int to_count(std::int64_t n, const char* what) {
  if (n < 0 || n > INT_MAX)
    throw Error(std::string(what) + ": " + std::to_string(n) + " elements exceed MPI's int count");
  return static_cast<int>(n);
}

class Comm {
 public:
  explicit Comm(MPI_Comm c) : c_(c) {}
  ~Comm() {
    if (c_ != MPI_COMM_NULL) MPI_Comm_free(&c_);
  }
  Comm(const Comm&) = delete;
  Comm& operator=(const Comm&) = delete;
  MPI_Comm get() const { return c_; }

 private:
  MPI_Comm c_;
};

class MpiReplayRuntime final : public ReplayRuntime {
 public:
  explicit MpiReplayRuntime(const World& world) : world_(world), waits_(world), p2p_(dup_world(world)) {
    MPI_Comm_rank(p2p_->get(), &rank_);
    // Linux delays a timer wake-up by up to the timer slack (50 us by default); the sleeps stand for
    // compute of exact duration, so ask for none.
    prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
    old_policy_ = sched_getscheduler(0);
    sched_getparam(0, &old_param_);
  }
  ~MpiReplayRuntime() override {
    set_realtime(false);
    for (auto& [h, pending] : pending_) {
      for (auto& r : pending.requests) {
        if (r != MPI_REQUEST_NULL) {
          MPI_Cancel(&r);
          MPI_Request_free(&r);
        }
      }
    }
  }

  std::string_view name() const override { return "mpi"; }
  int rank() const override { return rank_; }

  int add_group(const std::vector<int>& members) override {
    const bool member = std::binary_search(members.begin(), members.end(), rank_);
    MPI_Comm sub = MPI_COMM_NULL;
    check(MPI_Comm_split(p2p_->get(), member ? 0 : MPI_UNDEFINED, rank_, &sub), "MPI_Comm_split");
    if (!member) return -1;
    groups_.push_back(std::make_unique<Comm>(sub));
    return static_cast<int>(groups_.size()) - 1;
  }

  void begin_iteration(std::size_t tasks) override {
    if (!pending_.empty())
      throw Error("replay: an asynchronous P2P call of the previous iteration was never waited for");
    spans_.assign(tasks, ReplaySpan{});
    Pending barrier;
    barrier.requests.push_back(MPI_REQUEST_NULL);
    check(MPI_Ibarrier(p2p_->get(), &barrier.requests[0]), "MPI_Ibarrier");
    complete(barrier);
    if (waits_.sharing_cores()) set_realtime(true);
    origin_ns_ = monotonic_ns();
  }

  // On a GPU, P2P posted before a compute step runs beside it (NCCL kernels on their own stream), and
  // the simulator lets it. A host rank moves MPI transfers only inside MPI calls, so while asynchronous
  // calls are pending the compute polls them until its deadline (spinning with a core per rank, sleeping
  // kPollNs between polls where ranks share cores). With nothing left to poll it sleeps to the deadline;
  // with a core per rank at a real-time priority for this sleep alone (a wake-up at normal priority came
  // about 65 us late per step on a 16-core VM: 4 % of a 1.5 ms step) and only to kWakeMarginNs before
  // the deadline, spinning the rest.
  void compute(std::size_t task, std::int64_t duration_ns) override {
    static constexpr std::int64_t kWakeMarginNs = 200000;
    const std::int64_t start = monotonic_ns();
    const std::int64_t deadline = start + duration_ns;
    std::int64_t now = start;
    while (now < deadline && !pending_.empty() && progress_pending()) {
      if (waits_.sharing_cores()) sleep_until(std::min<std::int64_t>(deadline, now + MpiWaitPolicy::kPollNs));
      now = monotonic_ns();
    }
    if (waits_.sharing_cores()) {
      sleep_until(deadline);  // the whole iteration runs at a real-time priority (begin_iteration)
    } else if (now < deadline) {
      set_realtime(true);
      if (deadline - now > kWakeMarginNs) sleep_until(deadline - kWakeMarginNs);
      while (monotonic_ns() < deadline) {
      }
      set_realtime(false);
    }
    spans_.at(task) = {start - origin_ns_, monotonic_ns() - origin_ns_};
  }

  void p2p(std::size_t task, const ReplayP2P* ops, std::size_t n, bool blocking, int handle) override {
    Pending call;
    call.task = task;
    call.start_ns = monotonic_ns();
    for (std::size_t i = 0; i < n; ++i) {
      const auto& op = ops[i];
      // tags are dense per iteration; MPI guarantees tags up to 32767 (matching is in order anyway).
      const int tag = static_cast<int>(op.tag % 32768);
      void* buf = buffer(op.bytes, op.send);
      MPI_Request req = MPI_REQUEST_NULL;
      if (op.send) {
        check(MPI_Isend(buf, to_count(op.bytes, "MPI_Isend"), MPI_BYTE, op.peer, tag, p2p_->get(), &req), "MPI_Isend");
      } else {
        check(MPI_Irecv(buf, to_count(op.bytes, "MPI_Irecv"), MPI_BYTE, op.peer, tag, p2p_->get(), &req), "MPI_Irecv");
      }
      call.requests.push_back(req);
    }
    if (blocking) {
      complete(call);
      spans_.at(task) = {call.start_ns - origin_ns_, monotonic_ns() - origin_ns_};
      return;
    }
    if (!pending_.emplace(handle, std::move(call)).second)
      throw Error("replay: handle " + std::to_string(handle) + " posted twice");
  }

  void wait(std::size_t task, int handle) override {
    const std::int64_t start = monotonic_ns();
    const auto it = pending_.find(handle);
    if (it == pending_.end()) throw Error("replay: wait for handle " + std::to_string(handle) + " that was not posted");
    complete(it->second);
    const std::int64_t end = monotonic_ns();
    const std::int64_t done = it->second.done_ns >= 0 ? it->second.done_ns : end;
    spans_.at(it->second.task) = {it->second.start_ns - origin_ns_, done - origin_ns_};
    spans_.at(task) = {start - origin_ns_, end - origin_ns_};
    pending_.erase(it);
  }

  void collective(std::size_t task, int group, const ReplayCollCall& c) override {
    const std::int64_t start = monotonic_ns();
    MPI_Comm comm = groups_.at(static_cast<std::size_t>(group))->get();
    int size = 1;
    MPI_Comm_size(comm, &size);
    const auto elem = static_cast<std::int64_t>(dtype_size(c.dtype));
    const std::int64_t n = std::max<std::int64_t>(1, c.bytes / elem);
    // In place (Megatron's grad buffers, broadcasts): one buffer, the send buffer is never touched.
    char* recv = static_cast<char*>(buffer(n * elem, false));
    char* send = c.in_place ? recv : static_cast<char*>(buffer(n * elem, true));
    for (int i = 0; i < c.count; ++i) {
      Pending call;
      post_collective(c, comm, size, n, send, recv, call.requests);
      complete(call);
    }
    spans_.at(task) = {start - origin_ns_, monotonic_ns() - origin_ns_};
  }

  std::vector<ReplaySpan> end_iteration(std::int64_t* iteration_ns) override {
    for (auto& [h, call] : pending_) {
      complete(call);
      spans_.at(call.task).end_ns = (call.done_ns >= 0 ? call.done_ns : monotonic_ns()) - origin_ns_;
    }
    pending_.clear();
    *iteration_ns = monotonic_ns() - origin_ns_;
    set_realtime(false);
    return std::move(spans_);
  }

 private:
  struct Pending {
    std::size_t task = 0;
    std::int64_t start_ns = 0;
    std::int64_t done_ns = -1;  // when a poll during compute saw it complete
    std::vector<MPI_Request> requests;
  };

  static std::unique_ptr<Comm> dup_world(const World& world) {
    MPI_Comm c = MPI_COMM_NULL;
    check_mpi(MPI_Comm_dup(MPI_COMM_WORLD, &c), "MPI_Comm_dup", world.where());
    MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
    return std::make_unique<Comm>(c);
  }

  // One collective of n elements (all_gather: the gathered result, reduce_scatter: the input) with
  // bench's MpiBackend datatype and reduction (backend/mpi_types.h); in place as MPI_IN_PLACE.
  void post_collective(const ReplayCollCall& c, MPI_Comm comm, int size, std::int64_t n, char* send, char* recv,
                       std::vector<MPI_Request>& reqs) {
    const MPI_Datatype type = mpi_type(c.dtype);
    const MPI_Op op = ops_.get(c.dtype, c.redop);
    const int count = to_count(n, "MPI collective");
    const int per_rank = std::max(1, count / size);
    const void* in = c.in_place ? MPI_IN_PLACE : send;
    reqs.assign(1, MPI_REQUEST_NULL);
    switch (c.op) {
      case ReplayCollOp::kAllReduce:
        check(MPI_Iallreduce(in, recv, count, type, op, comm, &reqs[0]), "MPI_Iallreduce");
        break;
      case ReplayCollOp::kAllGather:
        check(MPI_Iallgather(in, per_rank, type, recv, per_rank, type, comm, &reqs[0]), "MPI_Iallgather");
        break;
      case ReplayCollOp::kReduceScatter:
        check(MPI_Ireduce_scatter_block(in, recv, per_rank, type, op, comm, &reqs[0]), "MPI_Ireduce_scatter_block");
        break;
      case ReplayCollOp::kBroadcast:
        check(MPI_Ibcast(recv, count, type, 0, comm, &reqs[0]), "MPI_Ibcast");
        break;
      case ReplayCollOp::kSendRecv: {  // CP's ring: each member sends to the next, receives from the previous
        int me = 0;
        MPI_Comm_rank(comm, &me);
        reqs.push_back(MPI_REQUEST_NULL);
        check(MPI_Irecv(recv, count, type, (me - 1 + size) % size, 0, comm, &reqs[0]), "MPI_Irecv");
        check(MPI_Isend(send, count, type, (me + 1) % size, 0, comm, &reqs[1]), "MPI_Isend");
        break;
      }
      case ReplayCollOp::kAllToAll:  // MoE's dispatch: n / size to each member
        check(MPI_Ialltoall(send, per_rank, type, recv, per_rank, type, comm, &reqs[0]), "MPI_Ialltoall");
        break;
    }
  }

  void complete(Pending& call) {
    waits_.wait(call.requests.data(), static_cast<int>(call.requests.size()), world_.where());
  }

  // One MPI_Testall pass over every pending asynchronous call; true while some are not done.
  bool progress_pending() {
    bool open = false;
    for (auto& [h, call] : pending_) {
      if (call.done_ns >= 0) continue;
      if (MpiWaitPolicy::test(call.requests.data(), static_cast<int>(call.requests.size()), world_.where())) {
        call.done_ns = monotonic_ns();
      } else {
        open = true;
      }
    }
    return open;
  }

  static void sleep_until(std::int64_t deadline_ns) {
    const timespec ts{static_cast<time_t>(deadline_ns / 1000000000), static_cast<long>(deadline_ns % 1000000000)};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr) != 0) {
    }
  }

  // One send and one receive buffer, grown to the largest message (contents are not checked). A buffer that
  // asynchronous P2P may still use when a larger message comes (a schedule whose sends are waited for at the
  // end of the iteration, with collectives in between) is kept until nothing is pending.
  void* buffer(std::int64_t bytes, bool send) {
    if (pending_.empty()) retired_.clear();
    auto& b = send ? send_buf_ : recv_buf_;
    if (static_cast<std::int64_t>(b.size()) < bytes) {
      if (!pending_.empty()) retired_.push_back(std::move(b));
      b.assign(static_cast<std::size_t>(bytes), 0);
    }
    return b.data();
  }

  void check(int rc, const char* call) const { check_mpi(rc, call, world_.where()); }

  // During an iteration, where allowed, a real-time priority (else the highest CFS weight): on a loaded
  // machine a waking rank then preempts other work at once, so a sleep stands for a compute of its
  // length. Where ranks share cores for the whole iteration (their waits sleep between polls), with a
  // core per rank for each compute sleep alone (their waits spin): the kernel throttles real-time tasks
  // that use more than sched_rt_runtime_us of a period (a 50 ms stall), which a spinning rank would.
  void set_realtime(bool on) {
    if (on && !realtime_ && !reniced_) {
      const sched_param rt{1};
      if (sched_setscheduler(0, SCHED_FIFO, &rt) == 0) {
        realtime_ = true;
        return;
      }
      errno = 0;
      old_nice_ = getpriority(PRIO_PROCESS, 0);
      if (errno == 0 && setpriority(PRIO_PROCESS, 0, -20) == 0) reniced_ = true;
    } else if (!on) {
      if (realtime_) sched_setscheduler(0, old_policy_, &old_param_);
      if (reniced_) setpriority(PRIO_PROCESS, 0, old_nice_);
      realtime_ = reniced_ = false;
    }
  }

  const World& world_;
  MpiWaitPolicy waits_;
  MpiOps ops_;
  std::unique_ptr<Comm> p2p_;
  int rank_ = 0;
  std::vector<std::unique_ptr<Comm>> groups_;
  std::map<int, Pending> pending_;
  std::vector<ReplaySpan> spans_;
  std::int64_t origin_ns_ = 0;
  std::vector<char> send_buf_, recv_buf_;
  std::vector<std::vector<char>> retired_;  // grown-out buffers that pending P2P may still use
  int old_nice_ = 0, old_policy_ = 0;
  sched_param old_param_{};
  bool reniced_ = false, realtime_ = false;
};

}  // namespace

std::unique_ptr<ReplayRuntime> make_mpi_replay_runtime(const World& world) {
  if (!world.has_mpi()) throw UsageError("replay --backend mpi: this process has no MPI");
  return std::make_unique<MpiReplayRuntime>(world);
}

}  // namespace pipebench
