// SPDX-License-Identifier: Apache-2.0
// ReplayRuntime on MPI: compute is a host sleep (clock_nanosleep to an absolute deadline, so ranks
// sharing cores still progress) during which the rank's asynchronous P2P keeps moving (polled through
// the MpiBackend's PendingComm); the calls are the MpiBackend's (its groups, its MpiWaitPolicy).
#include <mpi.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <time.h>

#include <algorithm>
#include <cerrno>
#include <map>
#include <vector>

#include "backend/mpi_wait.h"
#include "backend/replay_buffers.h"
#include "backend/replay_runtime.h"
#include "core/error.h"
#include "launch/mpi_check.h"

namespace pipebench {
namespace {

// An MPI communicator owned: freed when it goes.
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
  MpiReplayRuntime(const World& world, Backend& backend)
      : world_(world), waits_(world), barrier_(dup_world(world)), buffers_(backend) {
    // Linux delays a timer wake-up by up to the timer slack (50 us by default); the sleeps stand for
    // compute of exact duration, so ask for none.
    prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
    old_policy_ = sched_getscheduler(0);
    sched_getparam(0, &old_param_);
  }
  ~MpiReplayRuntime() override {
    set_realtime(false);
    pending_.clear();  // before the buffers: an unwaited call's requests are cancelled first
  }
  MpiReplayRuntime(const MpiReplayRuntime&) = delete;
  MpiReplayRuntime& operator=(const MpiReplayRuntime&) = delete;

  std::string_view name() const override { return "mpi"; }

  const Buffers& buffers(std::size_t send_bytes, std::size_t recv_bytes) override {
    return buffers_.get(send_bytes, recv_bytes, !pending_.empty());
  }

  void begin_iteration(std::size_t tasks) override {
    if (!pending_.empty())
      throw Error("replay: an asynchronous P2P call of the previous iteration was never waited for");
    // MPI_Ibarrier waited for as bench waits (polling, sleeping between polls where ranks share cores).
    MPI_Request barrier = MPI_REQUEST_NULL;
    check_mpi(MPI_Ibarrier(barrier_->get(), &barrier), "MPI_Ibarrier", world_.where());
    waits_.wait(&barrier, 1, world_.where());
    continue_iteration(tasks);
    barrier_ns_ = origin_ns_;
  }

  void continue_iteration(std::size_t tasks) override {
    if (!pending_.empty())
      throw Error("replay: an asynchronous P2P call of the previous iteration was never waited for");
    spans_.assign(tasks, ReplaySpan{});
    if (waits_.sharing_cores()) set_realtime(true);
    origin_ns_ = monotonic_ns();
  }

  std::int64_t origin_since_barrier_ns() const override { return origin_ns_ - barrier_ns_; }

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

  void p2p(std::size_t task, Backend& comm, const ReplayIssue& issue, bool blocking, int handle) override {
    Pending call;
    call.task = task;
    call.start_ns = monotonic_ns();
    comm.group_begin();
    issue();
    if (blocking) {
      comm.group_end();  // MpiBackend: waits for the group's requests
      spans_.at(task) = {call.start_ns - origin_ns_, monotonic_ns() - origin_ns_};
      return;
    }
    call.comm = comm.group_end_async();
    if (!pending_.emplace(handle, std::move(call)).second)
      throw Error("replay: handle " + std::to_string(handle) + " posted twice");
  }

  void wait(std::size_t task, int handle) override {
    const std::int64_t start = monotonic_ns();
    const auto it = pending_.find(handle);
    if (it == pending_.end()) throw Error("replay: wait for handle " + std::to_string(handle) + " that was not posted");
    it->second.comm->wait();
    const std::int64_t end = monotonic_ns();
    const std::int64_t done = it->second.done_ns >= 0 ? it->second.done_ns : end;
    spans_.at(it->second.task) = {it->second.start_ns - origin_ns_, done - origin_ns_};
    spans_.at(task) = {start - origin_ns_, end - origin_ns_};
    pending_.erase(it);
  }

  void collective(std::size_t task, Backend& comm, const ReplayIssue& issue, int count) override {
    const std::int64_t start = monotonic_ns();
    for (int i = 0; i < count; ++i) {
      comm.group_begin();
      issue();
      comm.group_end();
    }
    spans_.at(task) = {start - origin_ns_, monotonic_ns() - origin_ns_};
  }

  std::vector<ReplaySpan> end_iteration(std::int64_t* iteration_ns) override {
    for (auto& [h, call] : pending_) {
      call.comm->wait();
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
    std::unique_ptr<PendingComm> comm;
  };

  static std::unique_ptr<Comm> dup_world(const World& world) {
    MPI_Comm c = MPI_COMM_NULL;
    check_mpi(MPI_Comm_dup(MPI_COMM_WORLD, &c), "MPI_Comm_dup", world.where());
    MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
    return std::make_unique<Comm>(c);
  }

  // One progress pass (MPI_Testall) over every pending asynchronous call; true while some are not done.
  bool progress_pending() {
    bool open = false;
    for (auto& [h, call] : pending_) {
      if (call.done_ns >= 0) continue;
      if (call.comm->test()) {
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
  std::unique_ptr<Comm> barrier_;  // the iteration's start barrier, apart from the backend's calls
  ReplayBuffers buffers_;
  std::map<int, Pending> pending_;  // after buffers_: destroyed (its requests cancelled) before them
  std::vector<ReplaySpan> spans_;
  std::int64_t origin_ns_ = 0, barrier_ns_ = 0;  // this iteration's clock origin; the last barrier's
  int old_nice_ = 0, old_policy_ = 0;
  sched_param old_param_{};
  bool reniced_ = false, realtime_ = false;
};

}  // namespace

std::unique_ptr<ReplayRuntime> make_mpi_replay_runtime(const World& world, Backend& backend) {
  if (!world.has_mpi()) throw UsageError("replay --backend mpi: this process has no MPI");
  if (backend.kind() != BackendKind::kMpi || backend.nlocal() != 1)
    throw Error("replay on MPI: needs the MPI backend with one rank per process, got " + std::string(backend.name()));
  return std::make_unique<MpiReplayRuntime>(world, backend);
}

}  // namespace pipebench
