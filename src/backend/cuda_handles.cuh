// SPDX-License-Identifier: Apache-2.0
// RAII owners of CUDA and NCCL handles and the checks that name the failing call, rank and host.
// CUDA-only header: included from .cu files alone.
#pragma once

#include <cuda_runtime.h>
#include <nccl.h>

#include <cstdio>
#include <string>
#include <utility>

#include "core/error.h"

namespace pipebench {

inline void check_cuda(cudaError_t rc, const char* call, const std::string& where) {
  if (rc == cudaSuccess) return;
  throw Error(std::string(call) + " failed on " + where + ": " + cudaGetErrorString(rc));
}

inline void check_nccl(ncclResult_t rc, const char* call, const std::string& where, ncclComm_t comm = nullptr) {
  if (rc == ncclSuccess || rc == ncclInProgress) return;
  std::string msg = std::string(call) + " failed on " + where + ": " + ncclGetErrorString(rc);
  const char* last = ncclGetLastError(comm);
  if (last && *last) msg += std::string(" (") + last + ")";
  throw Error(msg);
}

// Destructors never throw: a failure there is printed, not raised.
inline void warn_cuda(cudaError_t rc, const char* call) {
  if (rc != cudaSuccess) std::fprintf(stderr, "pipebench: warning: %s: %s\n", call, cudaGetErrorString(rc));
}

template <typename T, typename Deleter>
class Handle {
 public:
  Handle() = default;
  Handle(T h, int device) : h_(h), device_(device) {}
  ~Handle() { reset(); }
  Handle(Handle&& o) noexcept : h_(std::exchange(o.h_, T{})), device_(o.device_) {}
  Handle& operator=(Handle&& o) noexcept {
    if (this != &o) {
      reset();
      h_ = std::exchange(o.h_, T{});
      device_ = o.device_;
    }
    return *this;
  }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  [[nodiscard]] T get() const { return h_; }
  [[nodiscard]] T release() { return std::exchange(h_, T{}); }
  void reset() {
    if (h_) {
      cudaSetDevice(device_);
      Deleter{}(h_);
      h_ = T{};
    }
  }

 private:
  T h_{};
  int device_ = 0;
};

struct StreamDeleter {
  void operator()(cudaStream_t s) const { warn_cuda(cudaStreamDestroy(s), "cudaStreamDestroy"); }
};
struct EventDeleter {
  void operator()(cudaEvent_t e) const { warn_cuda(cudaEventDestroy(e), "cudaEventDestroy"); }
};
struct DeviceMemoryDeleter {
  void operator()(void* p) const { warn_cuda(cudaFree(p), "cudaFree"); }
};
struct GraphExecDeleter {
  void operator()(cudaGraphExec_t g) const { warn_cuda(cudaGraphExecDestroy(g), "cudaGraphExecDestroy"); }
};
struct CommDeleter {
  void operator()(ncclComm_t c) const {
    if (ncclCommDestroy(c) != ncclSuccess) ncclCommAbort(c);
  }
};

using CudaStream = Handle<cudaStream_t, StreamDeleter>;
using CudaEvent = Handle<cudaEvent_t, EventDeleter>;
using DeviceMemory = Handle<void*, DeviceMemoryDeleter>;
using GraphExec = Handle<cudaGraphExec_t, GraphExecDeleter>;
using NcclComm = Handle<ncclComm_t, CommDeleter>;

// A new event, or non-blocking stream, of `device` (the current device); `where` names it in an error.
inline CudaEvent cuda_event(int device, const std::string& where) {
  cudaEvent_t e = nullptr;
  check_cuda(cudaEventCreate(&e), "cudaEventCreate", where);
  return CudaEvent(e, device);
}
inline CudaStream cuda_stream(int device, const std::string& where) {
  cudaStream_t s = nullptr;
  check_cuda(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreateWithFlags", where);
  return CudaStream(s, device);
}

}  // namespace pipebench
