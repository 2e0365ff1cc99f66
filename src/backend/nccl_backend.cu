// SPDX-License-Identifier: Apache-2.0
// NcclBackend: one process drives one or more GPUs (nccl-tests -g); the NCCL unique id travels by
// MPI_Bcast (World::broadcast); every local GPU has its own non-blocking stream and event pair.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "backend/cuda_handles.cuh"
#include "backend/device_buffers.cuh"
#include "backend/device_data.cuh"
#include "backend/nccl_backend.h"
#include "backend/nccl_local_stream.cuh"
#include "backend/nccl_types.cuh"
#include "core/error.h"
#include "launch/gpu_assignment.h"

namespace pipebench {
namespace {

// What one local GPU of a communicator holds.
struct Local {
  int device = 0;
  int rank = 0;  // in the communicator
  NcclComm comm;
  CudaStream stream;
  CudaEvent start, stop;
  DeviceMemory counter;  // for the data check
};

class NcclBackend;

// An event recorded on each local stream after a group: complete when the group is. A wait polls, so an
// asynchronous NCCL error (a peer gone) ends it with a message instead of a hang (as synchronize()).
class NcclPendingComm final : public PendingComm {
 public:
  struct Mark {
    CudaEvent event;
    ncclComm_t comm = nullptr;
    std::string where;
  };
  explicit NcclPendingComm(std::vector<Mark> marks) : marks_(std::move(marks)) {}
  bool test() override {
    for (const auto& m : marks_) {
      const cudaError_t rc = cudaEventQuery(m.event.get());
      if (rc == cudaErrorNotReady) return false;
      check_cuda(rc, "cudaEventQuery", m.where);
    }
    return true;
  }
  void wait() override {
    while (!test()) {
      for (const auto& m : marks_) {
        ncclResult_t async = ncclSuccess;
        check_nccl(ncclCommGetAsyncError(m.comm, &async), "ncclCommGetAsyncError", m.where, m.comm);
        check_nccl(async, "asynchronous NCCL error", m.where, m.comm);  // passes ncclSuccess and ncclInProgress
      }
      std::this_thread::yield();
    }
  }

 private:
  std::vector<Mark> marks_;
};

class NcclBatch final : public Batch {
 public:
  NcclBatch(NcclBackend& be, std::function<void()> issue, int ops, bool graph);
  BatchTime run() override;

 private:
  NcclBackend& be_;
  std::function<void()> issue_;
  int ops_;
  std::vector<GraphExec> graphs_;  // one per local GPU with -G
};

class NcclBackend final : public Backend {
 public:
  NcclBackend(const World& world, std::vector<Local> locals, std::vector<int> members)
      : world_(world), locals_(std::move(locals)), members_(std::move(members)) {}
  ~NcclBackend() override {
    // Streams must be idle before their comms go; errors here are printed, never thrown.
    for (auto& l : locals_) {
      cudaSetDevice(l.device);
      warn_cuda(cudaStreamSynchronize(l.stream.get()), "cudaStreamSynchronize");
    }
  }

  std::string_view name() const override { return "nccl"; }
  BackendKind kind() const override { return BackendKind::kNccl; }
  int nranks() const override { return static_cast<int>(members_.size()); }
  int nlocal() const override { return static_cast<int>(locals_.size()); }
  int rank_of(int local) const override { return at(local).rank; }
  int global_rank(int comm_rank) const override { return members_.at(static_cast<std::size_t>(comm_rank)); }
  std::size_t free_memory_bytes() const override {
    std::size_t least = SIZE_MAX;
    for (const auto& l : locals_) {
      std::size_t free_b = 0, total_b = 0;
      set_device(l);
      check_cuda(cudaMemGetInfo(&free_b, &total_b), "cudaMemGetInfo", where(l));
      least = std::min(least, free_b);
    }
    return least == SIZE_MAX ? 0 : least;
  }
  std::vector<DeviceDescription> devices() const override {
    std::vector<DeviceDescription> out;
    for (const auto& l : locals_) {
      cudaDeviceProp prop{};
      check_cuda(cudaGetDeviceProperties(&prop, l.device), "cudaGetDeviceProperties", where(l));
      char bus[32] = {};
      check_cuda(cudaDeviceGetPCIBusId(bus, sizeof bus, l.device), "cudaDeviceGetPCIBusId", where(l));
      out.push_back({global_rank(l.rank), l.device, bus, prop.name});
    }
    return out;
  }
  std::map<std::string, std::string> versions() const override {
    int driver = 0, runtime = 0, nccl = 0;
    cudaDriverGetVersion(&driver);
    cudaRuntimeGetVersion(&runtime);
    ncclGetVersion(&nccl);
    auto cuda_str = [](int v) { return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10); };
    // NCCL >= 2.9 encodes MAJOR*10000 + MINOR*100 + PATCH (nccl.h NCCL_VERSION).
    const std::string nccl_str =
        std::to_string(nccl / 10000) + "." + std::to_string(nccl / 100 % 100) + "." + std::to_string(nccl % 100);
    return {{"cuda_driver", cuda_str(driver)},
            {"cuda_runtime", cuda_str(runtime)},
            {"nccl", nccl_str},
            {"nccl_headers", std::to_string(NCCL_VERSION_CODE)},
            {"mpi", world_.mpi_version()}};
  }
  bool supports_graphs() const override { return true; }

  std::unique_ptr<Buffers> allocate(std::size_t send_bytes, std::size_t recv_bytes,
                                    const BufferOptions& options) override {
    std::vector<BufferHome> homes;
    for (const auto& l : locals_) homes.push_back({l.device, l.comm.get(), where(l)});
    return std::make_unique<DeviceBuffers>(homes, send_bytes, recv_bytes, options);
  }

  void group_begin() override { nccl(ncclGroupStart(), "ncclGroupStart"); }
  void group_end() override { nccl(ncclGroupEnd(), "ncclGroupEnd"); }
  std::unique_ptr<PendingComm> group_end_async() override {
    group_end();
    std::vector<NcclPendingComm::Mark> marks;
    for (const auto& l : locals_) {
      set_device(l);
      cudaEvent_t e = nullptr;
      check_cuda(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), "cudaEventCreateWithFlags", where(l));
      marks.push_back({CudaEvent(e, l.device), l.comm.get(), where(l)});
      check_cuda(cudaEventRecord(e, l.stream.get()), "cudaEventRecord", where(l));
    }
    return std::make_unique<NcclPendingComm>(std::move(marks));
  }
  void all_reduce(int i, const void* s, void* r, std::size_t n, DType t, RedOp op) override {
    auto& l = at(i);
    nccl(ncclAllReduce(s, r, n, nccl_type(t), nccl_op(op), l.comm.get(), l.stream.get()), "ncclAllReduce", l);
  }
  void all_gather(int i, const void* s, void* r, std::size_t n, DType t) override {
    auto& l = at(i);
    nccl(ncclAllGather(s, r, n, nccl_type(t), l.comm.get(), l.stream.get()), "ncclAllGather", l);
  }
  void reduce_scatter(int i, const void* s, void* r, std::size_t n, DType t, RedOp op) override {
    auto& l = at(i);
    nccl(ncclReduceScatter(s, r, n, nccl_type(t), nccl_op(op), l.comm.get(), l.stream.get()), "ncclReduceScatter", l);
  }
  void broadcast(int i, const void* s, void* r, std::size_t n, DType t, int root) override {
    auto& l = at(i);
    nccl(ncclBroadcast(s, r, n, nccl_type(t), root, l.comm.get(), l.stream.get()), "ncclBroadcast", l);
  }
  // ncclAlltoAll, ncclGather and ncclScatter came with NCCL 2.28; older NCCL: grouped send/recv as
  // nccl-tests does (alltoall.cu, gather.cu, scatter.cu RunColl).
  void all_to_all(int i, const void* s, void* r, std::size_t n, DType t) override {
    auto& l = at(i);
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 28, 0)
    nccl(ncclAlltoAll(s, r, n, nccl_type(t), l.comm.get(), l.stream.get()), "ncclAlltoAll", l);
#else
    const std::size_t block = n * dtype_size(t);
    nccl(ncclGroupStart(), "ncclGroupStart", l);
    for (int peer = 0; peer < nranks(); ++peer) {
      const std::size_t off = static_cast<std::size_t>(peer) * block;
      send(i, static_cast<const char*>(s) + off, n, t, peer);
      recv(i, static_cast<char*>(r) + off, n, t, peer);
    }
    nccl(ncclGroupEnd(), "ncclGroupEnd", l);
#endif
  }
  void reduce(int i, const void* s, void* r, std::size_t n, DType t, RedOp op, int root) override {
    auto& l = at(i);
    nccl(ncclReduce(s, r, n, nccl_type(t), nccl_op(op), root, l.comm.get(), l.stream.get()), "ncclReduce", l);
  }
  void gather(int i, const void* s, void* r, std::size_t n, DType t, int root) override {
    auto& l = at(i);
    if (n == 0) return;  // as nccl-tests GatherRunColl
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 28, 0)
    nccl(ncclGather(s, r, n, nccl_type(t), root, l.comm.get(), l.stream.get()), "ncclGather", l);
#else
    const std::size_t block = n * dtype_size(t);
    nccl(ncclGroupStart(), "ncclGroupStart", l);
    send(i, s, n, t, root);
    for (int peer = 0; l.rank == root && peer < nranks(); ++peer) {
      recv(i, static_cast<char*>(r) + static_cast<std::size_t>(peer) * block, n, t, peer);
    }
    nccl(ncclGroupEnd(), "ncclGroupEnd", l);
#endif
  }
  void scatter(int i, const void* s, void* r, std::size_t n, DType t, int root) override {
    auto& l = at(i);
    if (n == 0) return;  // as nccl-tests ScatterRunColl
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 28, 0)
    nccl(ncclScatter(s, r, n, nccl_type(t), root, l.comm.get(), l.stream.get()), "ncclScatter", l);
#else
    const std::size_t block = n * dtype_size(t);
    nccl(ncclGroupStart(), "ncclGroupStart", l);
    for (int peer = 0; l.rank == root && peer < nranks(); ++peer) {
      send(i, static_cast<const char*>(s) + static_cast<std::size_t>(peer) * block, n, t, peer);
    }
    recv(i, r, n, t, root);
    nccl(ncclGroupEnd(), "ncclGroupEnd", l);
#endif
  }
  void send(int i, const void* buf, std::size_t n, DType t, int peer) override {
    auto& l = at(i);
    nccl(ncclSend(buf, n, nccl_type(t), peer, l.comm.get(), l.stream.get()), "ncclSend", l);
  }
  void recv(int i, void* buf, std::size_t n, DType t, int peer) override {
    auto& l = at(i);
    nccl(ncclRecv(buf, n, nccl_type(t), peer, l.comm.get(), l.stream.get()), "ncclRecv", l);
  }

  // Polls instead of blocking so that an asynchronous NCCL error (a peer gone) ends the wait with a
  // message instead of a hang (nccl-tests' testStreamSynchronize does the same).
  void synchronize() override {
    for (auto& l : locals_) {
      set_device(l);
      while (true) {
        const cudaError_t rc = cudaStreamQuery(l.stream.get());
        if (rc == cudaSuccess) break;
        if (rc != cudaErrorNotReady) check_cuda(rc, "cudaStreamQuery", where(l));
        ncclResult_t async = ncclSuccess;
        nccl(ncclCommGetAsyncError(l.comm.get(), &async), "ncclCommGetAsyncError", l);
        nccl(async, "asynchronous NCCL error", l);  // passes ncclSuccess and ncclInProgress
        std::this_thread::yield();
      }
    }
  }

  std::unique_ptr<Batch> prepare_batch(std::function<void()> issue_one, int ops, bool graph) override {
    return std::make_unique<NcclBatch>(*this, std::move(issue_one), ops, graph);
  }

  void fill(const Buffers& b, int i, const FillRegion& r, const Pattern& p, DType t) override {
    auto& l = at(i);
    set_device(l);
    check_cuda(device_fill(r.buffer == BufferRole::kSend ? b.send(i) : b.recv(i), r, p, t, l.stream.get()),
               "fill kernel launch", where(l));
    check_cuda(cudaStreamSynchronize(l.stream.get()), "cudaStreamSynchronize", where(l));
  }
  std::uint64_t count_wrong(const Buffers& b, int i, const CheckRegion& r, const Pattern& p, DType t) override {
    auto& l = at(i);
    set_device(l);
    auto* counter = static_cast<unsigned long long*>(l.counter.get());
    check_cuda(cudaMemsetAsync(counter, 0, sizeof(unsigned long long), l.stream.get()), "cudaMemsetAsync", where(l));
    check_cuda(device_count_wrong(b.recv(i), r, p, t, counter, l.stream.get()), "verify kernel launch", where(l));
    unsigned long long wrong = 0;
    check_cuda(cudaMemcpyAsync(&wrong, counter, sizeof wrong, cudaMemcpyDeviceToHost, l.stream.get()),
               "cudaMemcpyAsync", where(l));
    check_cuda(cudaStreamSynchronize(l.stream.get()), "cudaStreamSynchronize", where(l));
    return wrong;
  }

  std::unique_ptr<Backend> split(const std::vector<int>& members) override {
    std::vector<int> global;
    for (int m : members) global.push_back(global_rank(m));
    std::vector<Local> sub;
    std::vector<ncclComm_t> comms(locals_.size(), nullptr);
    nccl(ncclGroupStart(), "ncclGroupStart");
    for (std::size_t i = 0; i < locals_.size(); ++i) {
      const bool member = std::binary_search(members.begin(), members.end(), locals_[i].rank);
      set_device(locals_[i]);
      // The smallest member names the group, so that disjoint lists give disjoint communicators.
      nccl(ncclCommSplit(locals_[i].comm.get(), member ? members.front() : NCCL_SPLIT_NOCOLOR, locals_[i].rank,
                         &comms[i], nullptr),
           "ncclCommSplit", locals_[i]);
    }
    nccl(ncclGroupEnd(), "ncclGroupEnd");
    for (std::size_t i = 0; i < locals_.size(); ++i) {
      if (!comms[i]) continue;
      Local l = make_local(locals_[i].device, where(locals_[i]));
      l.comm = NcclComm(comms[i], l.device);
      nccl(ncclCommUserRank(comms[i], &l.rank), "ncclCommUserRank", l);
      sub.push_back(std::move(l));
    }
    return std::make_unique<NcclBackend>(world_, std::move(sub), std::move(global));
  }

  static Local make_local(int device, const std::string& where) {
    Local l;
    l.device = device;
    check_cuda(cudaSetDevice(device), "cudaSetDevice", where);
    l.stream = cuda_stream(device, where);
    l.start = cuda_event(device, where);
    l.stop = cuda_event(device, where);
    void* c = nullptr;
    check_cuda(cudaMalloc(&c, sizeof(unsigned long long)), "cudaMalloc", where);
    l.counter = DeviceMemory(c, device);
    return l;
  }

  std::vector<Local>& locals() { return locals_; }
  [[nodiscard]] int device(int i) const { return at(i).device; }
  [[nodiscard]] cudaStream_t stream(int i) const { return at(i).stream.get(); }
  const World& world() const { return world_; }
  std::string where(const Local& l) const {
    return world_.where() + " (GPU " + std::to_string(l.device) + ", comm rank " + std::to_string(l.rank) + ")";
  }
  void set_device(const Local& l) const { check_cuda(cudaSetDevice(l.device), "cudaSetDevice", where(l)); }

 private:
  Local& at(int i) { return locals_.at(static_cast<std::size_t>(i)); }
  const Local& at(int i) const { return locals_.at(static_cast<std::size_t>(i)); }
  void nccl(ncclResult_t rc, const char* call) const { check_nccl(rc, call, world_.where()); }
  void nccl(ncclResult_t rc, const char* call, const Local& l) const { check_nccl(rc, call, where(l), l.comm.get()); }
  const World& world_;
  std::vector<Local> locals_;
  std::vector<int> members_;
};

NcclBatch::NcclBatch(NcclBackend& be, std::function<void()> issue, int ops, bool graph)
    : be_(be), issue_(std::move(issue)), ops_(ops) {
  if (!graph) return;
  auto& locals = be_.locals();
  // Capture each local stream; one thread issues the grouped ops for every GPU (nccl-tests -G).
  for (auto& l : locals) {
    be_.set_device(l);
    check_cuda(cudaStreamBeginCapture(l.stream.get(), cudaStreamCaptureModeThreadLocal), "cudaStreamBeginCapture",
               be_.where(l));
  }
  for (int i = 0; i < ops_; ++i) issue_();
  for (auto& l : locals) {
    be_.set_device(l);
    cudaGraph_t g = nullptr;
    check_cuda(cudaStreamEndCapture(l.stream.get(), &g), "cudaStreamEndCapture", be_.where(l));
    cudaGraphExec_t exec = nullptr;
    const cudaError_t rc = cudaGraphInstantiate(&exec, g, 0);
    cudaGraphDestroy(g);
    check_cuda(rc, "cudaGraphInstantiate", be_.where(l));
    graphs_.emplace_back(exec, l.device);
  }
}

BatchTime NcclBatch::run() {
  auto& locals = be_.locals();
  be_.synchronize();
  be_.world().barrier();
  for (auto& l : locals) {
    be_.set_device(l);
    check_cuda(cudaEventRecord(l.start.get(), l.stream.get()), "cudaEventRecord", be_.where(l));
  }
  const auto t0 = std::chrono::steady_clock::now();
  if (graphs_.empty()) {
    for (int i = 0; i < ops_; ++i) issue_();
  } else {
    for (std::size_t i = 0; i < locals.size(); ++i) {
      be_.set_device(locals[i]);
      check_cuda(cudaGraphLaunch(graphs_[i].get(), locals[i].stream.get()), "cudaGraphLaunch", be_.where(locals[i]));
    }
  }
  for (auto& l : locals) {
    be_.set_device(l);
    check_cuda(cudaEventRecord(l.stop.get(), l.stream.get()), "cudaEventRecord", be_.where(l));
  }
  const double enqueue_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  be_.synchronize();
  float longest_ms = 0;
  for (auto& l : locals) {
    float ms = 0;
    check_cuda(cudaEventElapsedTime(&ms, l.start.get(), l.stop.get()), "cudaEventElapsedTime", be_.where(l));
    longest_ms = std::max(longest_ms, ms);
  }
  return {longest_ms / 1e3, enqueue_s};
}

}  // namespace

NcclLocalStream nccl_local_stream(Backend& backend, int local) {
  const auto* nccl = dynamic_cast<const NcclBackend*>(&backend);
  if (!nccl) throw Error("nccl_local_stream: the " + std::string(backend.name()) + " backend has no CUDA stream");
  return {nccl->device(local), nccl->stream(local)};
}

int nccl_visible_gpus(std::string* why) {
  int n = 0;
  const cudaError_t rc = cudaGetDeviceCount(&n);
  if (rc != cudaSuccess) {
    if (why) *why = std::string("cudaGetDeviceCount: ") + cudaGetErrorString(rc);
    return 0;
  }
  if (n == 0 && why) *why = "no CUDA device is visible";
  return n;
}

namespace {

// What --gpus can name each visible device by: its UUID as nvidia-smi -L prints it and its PCI bus id.
std::vector<GpuIdentity> gpu_identities(int visible, const std::string& where) {
  std::vector<GpuIdentity> out;
  for (int d = 0; d < visible; ++d) {
    cudaDeviceProp prop{};
    check_cuda(cudaGetDeviceProperties(&prop, d), "cudaGetDeviceProperties", where);
    const auto* u = reinterpret_cast<const unsigned char*>(prop.uuid.bytes);
    char uuid[48];
    std::snprintf(uuid, sizeof uuid, "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0],
                  u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
    char bus[32] = "";
    check_cuda(cudaDeviceGetPCIBusId(bus, sizeof bus, d), "cudaDeviceGetPCIBusId", where);
    out.push_back({uuid, bus});
  }
  return out;
}

}  // namespace

std::unique_ptr<Backend> make_nccl_backend(const World& world, int gpus, const std::vector<std::string>& gpu_list) {
  std::string why;
  const int visible = nccl_visible_gpus(&why);
  if (visible == 0) throw Error("nccl backend on " + world.where() + ": " + why);
  const std::vector<int> listed =
      gpu_list.empty() ? std::vector<int>{}
                       : resolve_gpu_list(gpu_list, gpu_identities(visible, world.where()), world.host());
  std::vector<Local> locals;
  for (int i = 0; i < gpus; ++i) {
    const int device =
        pick_listed_device(i, gpus, listed, visible, world.local_rank(), world.local_size(), world.host());
    locals.push_back(NcclBackend::make_local(device, world.where()));
    locals.back().rank = world.rank() * gpus + i;
  }
  ncclUniqueId id{};
  std::string id_bytes(sizeof id, '\0');
  if (world.rank() == 0) {
    check_nccl(ncclGetUniqueId(&id), "ncclGetUniqueId", world.where());
    id_bytes.assign(reinterpret_cast<const char*>(&id), sizeof id);
  }
  id_bytes = world.broadcast(id_bytes, 0);
  std::copy(id_bytes.begin(), id_bytes.end(), reinterpret_cast<char*>(&id));
  const int nranks = world.size() * gpus;
  std::vector<ncclComm_t> comms(locals.size(), nullptr);
  check_nccl(ncclGroupStart(), "ncclGroupStart", world.where());
  for (std::size_t i = 0; i < locals.size(); ++i) {
    check_cuda(cudaSetDevice(locals[i].device), "cudaSetDevice", world.where());
    check_nccl(ncclCommInitRank(&comms[i], nranks, id, locals[i].rank), "ncclCommInitRank", world.where());
  }
  check_nccl(ncclGroupEnd(), "ncclGroupEnd (ncclCommInitRank)", world.where());
  for (std::size_t i = 0; i < locals.size(); ++i) locals[i].comm = NcclComm(comms[i], locals[i].device);
  std::vector<int> members(static_cast<std::size_t>(nranks));
  for (int r = 0; r < nranks; ++r) members[static_cast<std::size_t>(r)] = r;
  return std::make_unique<NcclBackend>(world, std::move(locals), std::move(members));
}

}  // namespace pipebench
