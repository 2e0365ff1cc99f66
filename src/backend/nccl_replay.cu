// SPDX-License-Identifier: Apache-2.0
// ReplayRuntime on NCCL: compute is the spin kernel on a compute stream; P2P and collectives run on a
// communication stream (Megatron's separate P2P stream with overlap), ordered after the compute
// before them by events. A blocking call also synchronises the host, as Megatron's batched,
// cuda-synchronised calls do; an async one makes the compute stream wait only at its wait().
// Every task is bracketed by CUDA events; spans are read after the iteration.
#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "backend/cuda_handles.cuh"
#include "backend/nccl_types.cuh"
#include "backend/replay_gemm.h"
#include "backend/replay_runtime.h"
#include "backend/replay_spin.h"

namespace pipebench {
namespace {

class NcclReplayRuntime final : public ReplayRuntime {
 public:
  NcclReplayRuntime(const World& world, const ReplayComputeOptions& c) : world_(world), sms_(c.compute_sms) {
    if (c.kind != "spin" && c.kind != "gemm") throw UsageError("--compute " + c.kind + ": spin or gemm");
    int n = 0;
    check(cudaGetDeviceCount(&n), "cudaGetDeviceCount");
    if (n == 0) throw LocalUsageError("replay --backend nccl: no GPU on " + world.where());
    device_ = world.local_rank() % n;
    check(cudaSetDevice(device_), "cudaSetDevice");
    if (sms_ > device_sms())
      throw UsageError("--compute-sms " + std::to_string(sms_) + ": the GPU has " + std::to_string(device_sms()));
    if (c.kind == "gemm") gemm_ = std::make_unique<ReplayGemm>(c.layer_gemms, c.gemm_dtype, device_, c.layer_fwd_ns);
    compute_ = make_stream();
    comm_ = make_stream();
    spin_ = std::make_unique<SpinKernel>();
    ncclUniqueId id{};
    if (world.rank() == 0) check_nccl(ncclGetUniqueId(&id), "ncclGetUniqueId", world.where());
    const std::string bytes = world.broadcast(std::string(reinterpret_cast<const char*>(&id), sizeof id), 0);
    std::copy(bytes.begin(), bytes.end(), reinterpret_cast<char*>(&id));
    ncclComm_t comm = nullptr;
    check_nccl(ncclCommInitRank(&comm, world.size(), id, world.rank()), "ncclCommInitRank", world.where());
    nccl_ = NcclComm(comm, device_);
  }
  ~NcclReplayRuntime() override { cudaDeviceSynchronize(); }

  std::string_view name() const override { return "nccl"; }
  int rank() const override { return world_.rank(); }

  int add_group(const std::vector<int>& members) override {
    const bool member = std::binary_search(members.begin(), members.end(), world_.rank());
    ncclComm_t sub = nullptr;
    check_nccl(ncclCommSplit(nccl_.get(), member ? 0 : NCCL_SPLIT_NOCOLOR, world_.rank(), &sub, nullptr),
               "ncclCommSplit", world_.where(), nccl_.get());
    if (!member) return -1;
    groups_.emplace_back(sub, device_);
    return static_cast<int>(groups_.size()) - 1;
  }

  void begin_iteration(std::size_t tasks) override {
    check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    while (events_.size() < 2 * tasks + 2) events_.push_back(make_event());
    tasks_ = tasks;
    recorded_.assign(tasks, false);
    spun_ns_.assign(tasks, 0);
    world_.barrier();
    record(origin(), compute_);
  }

  void compute(std::size_t task, std::int64_t duration_ns) override {
    record(start(task), compute_);
    if (gemm_) {
      gemm_->run(compute_.get(), duration_ns);
    } else {
      spin_->launch(compute_.get(), duration_ns, sms_);
      spun_ns_[task] = duration_ns;
    }
    record(end(task), compute_);
    recorded_[task] = true;
  }

  void p2p(std::size_t task, const ReplayP2P* ops, std::size_t n, bool blocking, int handle) override {
    comm_after_compute(start(task));
    check_nccl(ncclGroupStart(), "ncclGroupStart", world_.where());
    for (std::size_t i = 0; i < n; ++i) {
      const auto count = static_cast<std::size_t>(ops[i].bytes);
      if (ops[i].send) {
        check_nccl(ncclSend(buffer(send_buf_, ops[i].bytes), count, ncclInt8, ops[i].peer, nccl_.get(), comm_.get()),
                   "ncclSend", world_.where(), nccl_.get());
      } else {
        check_nccl(ncclRecv(buffer(recv_buf_, ops[i].bytes), count, ncclInt8, ops[i].peer, nccl_.get(), comm_.get()),
                   "ncclRecv", world_.where(), nccl_.get());
      }
    }
    check_nccl(ncclGroupEnd(), "ncclGroupEnd", world_.where(), nccl_.get());
    record(end(task), comm_);
    recorded_[task] = true;
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
    record(start(task), compute_);
    check(cudaStreamWaitEvent(compute_.get(), end(it->second), 0), "cudaStreamWaitEvent");
    record(end(task), compute_);
    recorded_[task] = true;
    pending_.erase(it);
  }

  void collective(std::size_t task, int group, const ReplayCollCall& c) override {
    ncclComm_t comm = groups_.at(static_cast<std::size_t>(group)).get();
    int size = 1;
    check_nccl(ncclCommCount(comm, &size), "ncclCommCount", world_.where(), comm);
    int me = 0;
    check_nccl(ncclCommUserRank(comm, &me), "ncclCommUserRank", world_.where(), comm);
    const std::size_t elem = dtype_size(c.dtype);
    const std::size_t n = std::max<std::size_t>(1, static_cast<std::size_t>(std::max<std::int64_t>(0, c.bytes)) / elem);
    const std::size_t per_rank = std::max<std::size_t>(1, n / static_cast<std::size_t>(size));
    // In place (Megatron's grad buffers, broadcasts): one buffer; all_gather's input and
    // reduce_scatter's output are this rank's block of it, as NCCL defines in place.
    char* out = static_cast<char*>(buffer(recv_buf_, static_cast<std::int64_t>(n * elem)));
    char* in = c.in_place ? out : static_cast<char*>(buffer(send_buf_, static_cast<std::int64_t>(n * elem)));
    char* block = out + static_cast<std::size_t>(me) * per_rank * elem;
    const ncclDataType_t type = nccl_type(c.dtype);
    comm_after_compute(start(task));
    for (int i = 0; i < c.count; ++i) {
      ncclResult_t rc = ncclSuccess;
      switch (c.op) {
        case ReplayCollOp::kAllReduce:
          rc = ncclAllReduce(in, out, n, type, nccl_op(c.redop), comm, comm_.get());
          break;
        case ReplayCollOp::kAllGather:
          rc = ncclAllGather(c.in_place ? block : in, out, per_rank, type, comm, comm_.get());
          break;
        case ReplayCollOp::kReduceScatter:
          rc = ncclReduceScatter(in, c.in_place ? block : out, per_rank, type, nccl_op(c.redop), comm, comm_.get());
          break;
        case ReplayCollOp::kBroadcast:
          rc = ncclBroadcast(out, out, n, type, 0, comm, comm_.get());
          break;
        case ReplayCollOp::kSendRecv:
          rc = ring_shift(in, out, n * elem, comm, size);
          break;
        case ReplayCollOp::kAllToAll:
          rc = all_to_all(in, out, per_rank * elem, comm, size);
          break;
      }
      check_nccl(rc, "nccl collective", world_.where(), comm);
    }
    record(end(task), comm_);
    recorded_[task] = true;
    check(cudaStreamWaitEvent(compute_.get(), end(task), 0), "cudaStreamWaitEvent");
    check(cudaEventSynchronize(end(task)), "cudaEventSynchronize");
  }

  std::vector<ReplaySpan> end_iteration(std::int64_t* iteration_ns) override {
    check(cudaStreamWaitEvent(compute_.get(), record_on(events_.back().get(), comm_), 0), "cudaStreamWaitEvent");
    check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
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
  // Each member sends n bytes to the next and receives n from the previous, in one group (CP's ring).
  ncclResult_t ring_shift(const void* in, void* out, std::size_t n, ncclComm_t comm, int size) {
    int me = 0;
    ncclResult_t rc = ncclCommUserRank(comm, &me);
    if (rc != ncclSuccess) return rc;
    if ((rc = ncclGroupStart()) != ncclSuccess) return rc;
    rc = ncclSend(in, n, ncclInt8, (me + 1) % size, comm, comm_.get());
    if (rc == ncclSuccess) rc = ncclRecv(out, n, ncclInt8, (me - 1 + size) % size, comm, comm_.get());
    const ncclResult_t end = ncclGroupEnd();
    return rc != ncclSuccess ? rc : end;
  }
  // per_rank bytes to and from every member, in one group (nccl-tests' alltoall).
  ncclResult_t all_to_all(const void* in, void* out, std::size_t per_rank, ncclComm_t comm, int size) {
    ncclResult_t rc = ncclGroupStart();
    if (rc != ncclSuccess) return rc;
    for (int p = 0; p < size && rc == ncclSuccess; ++p) {
      rc = ncclSend(static_cast<const char*>(in) + static_cast<std::size_t>(p) * per_rank, per_rank, ncclInt8, p, comm,
                    comm_.get());
      if (rc == ncclSuccess)
        rc = ncclRecv(static_cast<char*>(out) + static_cast<std::size_t>(p) * per_rank, per_rank, ncclInt8, p, comm,
                      comm_.get());
    }
    const ncclResult_t end = ncclGroupEnd();
    return rc != ncclSuccess ? rc : end;
  }
  CudaStream make_stream() {
    cudaStream_t s = nullptr;
    check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
    return CudaStream(s, device_);
  }
  CudaEvent make_event() {
    cudaEvent_t e = nullptr;
    check(cudaEventCreate(&e), "cudaEventCreate");
    return CudaEvent(e, device_);
  }
  cudaEvent_t origin() const { return events_[0].get(); }
  cudaEvent_t start(std::size_t t) const { return events_[1 + 2 * t].get(); }
  cudaEvent_t end(std::size_t t) const { return events_[2 + 2 * t].get(); }
  void record(cudaEvent_t e, const CudaStream& s) { check(cudaEventRecord(e, s.get()), "cudaEventRecord"); }
  cudaEvent_t record_on(cudaEvent_t e, const CudaStream& s) {
    record(e, s);
    return e;
  }
  // The communication stream starts after the compute issued before it (the call's inputs).
  void comm_after_compute(cudaEvent_t start_event) {
    record(start_event, compute_);
    check(cudaStreamWaitEvent(comm_.get(), start_event, 0), "cudaStreamWaitEvent");
  }
  std::int64_t elapsed_ns(cudaEvent_t e) const {
    float ms = 0;
    check(cudaEventElapsedTime(&ms, origin(), e), "cudaEventElapsedTime");
    return static_cast<std::int64_t>(static_cast<double>(ms) * 1e6);
  }
  // One send and one receive buffer, grown to the largest message (contents are not checked). A buffer that
  // asynchronous P2P may still use when a larger message comes (the zero-bubble schedules wait for their
  // sends at the end of the iteration, with collectives in between) is kept until nothing is pending, and
  // freed then (cudaFree waits for the device).
  void* buffer(DeviceMemory& b, std::int64_t bytes) {
    if (pending_.empty()) retired_.clear();
    auto& size = &b == &send_buf_ ? send_bytes_ : recv_bytes_;
    if (bytes > size) {
      if (pending_.empty()) {
        check(cudaStreamSynchronize(comm_.get()), "cudaStreamSynchronize");
        b.reset();
      } else {
        retired_.push_back(std::move(b));
      }
      void* p = nullptr;
      check(cudaMalloc(&p, static_cast<std::size_t>(bytes)), "cudaMalloc");
      b = DeviceMemory(p, device_);
      size = bytes;
    }
    return b.get();
  }

  const World& world_;
  int device_ = 0, sms_ = 0;
  std::unique_ptr<ReplayGemm> gemm_;  // --compute gemm; destroyed after the streams it ran on
  CudaStream compute_, comm_;
  std::unique_ptr<SpinKernel> spin_;  // made after cudaSetDevice: its word lives on this rank's GPU
  NcclComm nccl_;
  std::vector<NcclComm> groups_;
  std::vector<CudaEvent> events_;
  std::vector<bool> recorded_;
  std::vector<std::int64_t> spun_ns_;  // per task: the duration a spin launch was asked for, 0 if none
  std::size_t tasks_ = 0;
  std::map<int, std::size_t> pending_;
  DeviceMemory send_buf_, recv_buf_;
  std::vector<DeviceMemory> retired_;  // grown-out buffers that pending P2P may still use
  std::int64_t send_bytes_ = 0, recv_bytes_ = 0;
};

}  // namespace

std::unique_ptr<ReplayRuntime> make_nccl_replay_runtime(const World& world, const ReplayComputeOptions& compute) {
  return std::make_unique<NcclReplayRuntime>(world, compute);
}

}  // namespace pipebench
