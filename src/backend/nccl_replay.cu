// SPDX-License-Identifier: Apache-2.0
// ReplayRuntime on NCCL: compute is the spin kernel (or GEMMs) on a compute stream; P2P and collectives
// are the NcclBackend's calls on its communicators' streams (the world's for P2P, a split's for a group:
// Megatron's separate communication streams), each call ordered after the compute before it and after
// the communication task before it by events, so the calls keep the one order the replay issues them in.
// A blocking call also synchronises the host, as Megatron's batched, cuda-synchronised calls do; an
// async one makes the compute stream wait only at its wait(). Every task is bracketed by CUDA events;
// spans are read after the iteration.
#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "backend/cuda_handles.cuh"
#include "backend/nccl_local_stream.cuh"
#include "backend/replay_buffers.h"
#include "backend/replay_gemm.h"
#include "backend/replay_runtime.h"
#include "backend/replay_spin.h"

namespace pipebench {
namespace {

class NcclReplayRuntime final : public ReplayRuntime {
 public:
  NcclReplayRuntime(const World& world, Backend& backend, const ReplayComputeOptions& c)
      : world_(world), device_(nccl_local_stream(backend, 0).device), sms_(c.compute_sms), buffers_(backend) {
    if (c.kind != "spin" && c.kind != "gemm") throw UsageError("--compute " + c.kind + ": spin or gemm");
    check(cudaSetDevice(device_), "cudaSetDevice");
    if (sms_ > device_sms())
      throw UsageError("--compute-sms " + std::to_string(sms_) + ": the GPU has " + std::to_string(device_sms()));
    if (c.kind == "gemm") gemm_ = std::make_unique<ReplayGemm>(c.layer_gemms, c.gemm_dtype, device_, c.layer_fwd_ns);
    compute_ = cuda_stream(device_, world_.where());
    barrier_origin_ = cuda_event(device_, world_.where());
    spin_ = std::make_unique<SpinKernel>();
  }
  ~NcclReplayRuntime() override { cudaDeviceSynchronize(); }
  NcclReplayRuntime(const NcclReplayRuntime&) = delete;
  NcclReplayRuntime& operator=(const NcclReplayRuntime&) = delete;

  std::string_view name() const override { return "nccl"; }

  // Memory is freed only with the device idle: a call waited for on the compute stream may still run.
  const Buffers& buffers(std::size_t send_bytes, std::size_t recv_bytes) override {
    if (pending_.empty() && (buffers_.holds_retired() || buffers_.grows(send_bytes, recv_bytes)))
      check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    return buffers_.get(send_bytes, recv_bytes, !pending_.empty());
  }

  void begin_iteration(std::size_t tasks) override {
    prepare(tasks);
    world_.barrier();
    record(origin(), compute_.get());
    record(barrier_origin_.get(), compute_.get());
  }

  void continue_iteration(std::size_t tasks) override {
    prepare(tasks);
    record(origin(), compute_.get());
  }

  std::int64_t origin_since_barrier_ns() const override {
    float ms = 0;
    check(cudaEventElapsedTime(&ms, barrier_origin_.get(), origin()), "cudaEventElapsedTime");
    return static_cast<std::int64_t>(static_cast<double>(ms) * 1e6);
  }

  void compute(std::size_t task, std::int64_t duration_ns) override {
    record(start(task), compute_.get());
    if (gemm_) {
      gemm_->run(compute_.get(), duration_ns);
    } else {
      spin_->launch(compute_.get(), duration_ns, sms_);
      spun_ns_[task] = duration_ns;
    }
    record(end(task), compute_.get());
    recorded_[task] = true;
  }

  void p2p(std::size_t task, Backend& comm, const ReplayIssue& issue, bool blocking, int handle) override {
    const cudaStream_t stream = comm_after_compute(task, comm);
    comm.group_begin();
    issue();
    comm.group_end();  // NcclBackend: ncclGroupEnd, which returns once the group is enqueued
    comm_done(task, stream);
    if (blocking) {
      check(cudaStreamWaitEvent(compute_.get(), end(task), 0), "cudaStreamWaitEvent");
      check(cudaEventSynchronize(end(task)), "cudaEventSynchronize");
    } else {
      pending_[handle] = task;
    }
  }

  void wait(std::size_t task, int handle) override {
    const auto it = pending_.find(handle);
    if (it == pending_.end()) throw Error("replay: wait for handle " + std::to_string(handle) + " that was not posted");
    record(start(task), compute_.get());
    check(cudaStreamWaitEvent(compute_.get(), end(it->second), 0), "cudaStreamWaitEvent");
    record(end(task), compute_.get());
    recorded_[task] = true;
    pending_.erase(it);
  }

  void collective(std::size_t task, Backend& comm, const ReplayIssue& issue, int count) override {
    const cudaStream_t stream = comm_after_compute(task, comm);
    for (int i = 0; i < count; ++i) {
      comm.group_begin();
      issue();
      comm.group_end();
    }
    comm_done(task, stream);
    check(cudaStreamWaitEvent(compute_.get(), end(task), 0), "cudaStreamWaitEvent");
    check(cudaEventSynchronize(end(task)), "cudaEventSynchronize");
  }

  std::vector<ReplaySpan> end_iteration(std::int64_t* iteration_ns) override {
    check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");  // every stream: compute and each communicator's
    std::vector<ReplaySpan> spans(tasks_);
    std::int64_t last = 0;
    for (std::size_t t = 0; t < tasks_; ++t) {
      if (!recorded_[t]) continue;
      spans[t] = {elapsed_ns(start(t)), elapsed_ns(end(t))};
      last = std::max(last, spans[t].end_ns);
      // The spin learns the launch latency under this replay's own NCCL load (SpinKernel::observe).
      if (spun_ns_[t] > 0) spin_->observe(spun_ns_[t], spans[t].end_ns - spans[t].start_ns);
    }
    pending_.clear();
    *iteration_ns = last;
    return spans;
  }

 private:
  void check(cudaError_t rc, const char* call) const { check_cuda(rc, call, world_.where()); }
  // The device idle (the last iteration's work done), and the events and slots of `tasks` tasks.
  void prepare(std::size_t tasks) {
    check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    while (events_.size() < 2 * tasks + 2) events_.push_back(cuda_event(device_, world_.where()));
    tasks_ = tasks;
    recorded_.assign(tasks, false);
    spun_ns_.assign(tasks, 0);
    last_comm_ = nullptr;
  }
  cudaEvent_t origin() const { return events_[0].get(); }
  cudaEvent_t start(std::size_t t) const { return events_[1 + 2 * t].get(); }
  cudaEvent_t end(std::size_t t) const { return events_[2 + 2 * t].get(); }
  void record(cudaEvent_t e, cudaStream_t s) { check(cudaEventRecord(e, s), "cudaEventRecord"); }
  // The communicator's stream starts this task after the compute issued before it (the call's inputs) and
  // after the communication task before it, on whichever stream that ran (the order of one stream, which
  // the replay kept before its calls became the backends'). Returns the stream.
  cudaStream_t comm_after_compute(std::size_t task, Backend& comm) {
    const NcclLocalStream local = nccl_local_stream(comm, 0);
    record(start(task), compute_.get());
    check(cudaStreamWaitEvent(local.stream, start(task), 0), "cudaStreamWaitEvent");
    if (last_comm_) check(cudaStreamWaitEvent(local.stream, last_comm_, 0), "cudaStreamWaitEvent");
    return local.stream;
  }
  void comm_done(std::size_t task, cudaStream_t stream) {
    record(end(task), stream);
    recorded_[task] = true;
    last_comm_ = end(task);
  }
  std::int64_t elapsed_ns(cudaEvent_t e) const {
    float ms = 0;
    check(cudaEventElapsedTime(&ms, origin(), e), "cudaEventElapsedTime");
    return static_cast<std::int64_t>(static_cast<double>(ms) * 1e6);
  }
  const World& world_;
  int device_ = 0, sms_ = 0;
  std::unique_ptr<ReplayGemm> gemm_;  // --compute gemm; destroyed after the streams it ran on
  CudaStream compute_;
  std::unique_ptr<SpinKernel> spin_;  // made after cudaSetDevice: its word lives on this rank's GPU
  ReplayBuffers buffers_;
  std::vector<CudaEvent> events_;
  CudaEvent barrier_origin_;         // the origin of the last iteration begun with the barrier
  cudaEvent_t last_comm_ = nullptr;  // the end event of the last communication task, one of events_
  std::vector<bool> recorded_;
  std::vector<std::int64_t> spun_ns_;  // per task: the duration a spin launch was asked for, 0 if none
  std::size_t tasks_ = 0;
  std::map<int, std::size_t> pending_;
};

}  // namespace

std::unique_ptr<ReplayRuntime> make_nccl_replay_runtime(const World& world, Backend& backend,
                                                        const ReplayComputeOptions& compute) {
  if (backend.kind() != BackendKind::kNccl || backend.nlocal() != 1)
    throw Error("replay on NCCL: needs the NCCL backend with one GPU per process, got " + std::string(backend.name()) +
                " with " + std::to_string(backend.nlocal()) + " local ranks");
  return std::make_unique<NcclReplayRuntime>(world, backend, compute);
}

}  // namespace pipebench
