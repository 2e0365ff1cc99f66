// SPDX-License-Identifier: Apache-2.0
#include <cstdio>

#include "backend/cuda_handles.cuh"
#include "backend/device_buffers.cuh"
#include "core/error.h"

namespace pipebench {
namespace {

// ncclMemAlloc appeared in NCCL 2.19, ncclCommWindowRegister in 2.27 (nccl.h; nccl-tests common.cu).
constexpr bool kHaveNcclMemAlloc = NCCL_VERSION_CODE >= NCCL_VERSION(2, 19, 0);
constexpr bool kHaveWindows = NCCL_VERSION_CODE >= NCCL_VERSION(2, 27, 0);

}  // namespace

DeviceBuffers::DeviceBuffers(const std::vector<BufferHome>& homes, std::size_t send_bytes, std::size_t recv_bytes,
                             const BufferOptions& options)
    : send_bytes_(send_bytes), recv_bytes_(recv_bytes) {
  if (options.registration == 2 && options.alloc == BufferAlloc::kCuda) {
    throw UsageError("-R 2: symmetric registration needs ncclMemAlloc memory; drop --alloc cuda");
  }
  try {
    for (const auto& h : homes) {
      send_.push_back(allocate(h, send_bytes, options.alloc));
      recv_.push_back(allocate(h, recv_bytes, options.alloc));
    }
    if (options.registration > 0) register_all(homes, options.registration);
  } catch (...) {
    release();
    throw;
  }
}

DeviceBuffers::~DeviceBuffers() { release(); }

void* DeviceBuffers::send(int local) const { return send_.at(static_cast<std::size_t>(local)).ptr; }
void* DeviceBuffers::recv(int local) const { return recv_.at(static_cast<std::size_t>(local)).ptr; }

DeviceBuffers::Allocation DeviceBuffers::allocate(const BufferHome& h, std::size_t bytes, BufferAlloc alloc) {
  Allocation a;
  a.device = h.device;
  const std::size_t n = bytes ? bytes : 1;
  check_cuda(cudaSetDevice(h.device), "cudaSetDevice", h.where);
  if (alloc != BufferAlloc::kCuda && kHaveNcclMemAlloc) {
    const ncclResult_t rc = ncclMemAlloc(&a.ptr, n);
    if (rc == ncclSuccess) {
      a.nccl = true;
      return a;
    }
    // The default falls back to cudaMalloc, as nccl-tests does where ncclMemAlloc is missing.
    if (alloc == BufferAlloc::kNcclMem)
      check_nccl(rc, ("ncclMemAlloc(" + std::to_string(n) + " bytes)").c_str(), h.where);
    a.ptr = nullptr;
  } else if (alloc == BufferAlloc::kNcclMem) {
    throw UsageError("--alloc ncclmem: this NCCL has no ncclMemAlloc (NCCL >= 2.19)");
  }
  check_cuda(cudaMalloc(&a.ptr, n), ("cudaMalloc(" + std::to_string(n) + " bytes)").c_str(), h.where);
  return a;
}

void DeviceBuffers::register_all(const std::vector<BufferHome>& homes, int mode) {
  const bool windows = mode == 2 && kHaveWindows;
  if (mode == 2 && !kHaveWindows) {
    std::fprintf(stderr, "pipebench: -R 2: this NCCL has no ncclCommWindowRegister (2.27); registering with -R 1\n");
  }
  // Window registration is collective: every local communicator in one group (nccl-tests common.cu).
  if (windows) check_nccl(ncclGroupStart(), "ncclGroupStart", homes.front().where);
  for (std::size_t i = 0; i < homes.size(); ++i) {
    const auto& h = homes[i];
    check_cuda(cudaSetDevice(h.device), "cudaSetDevice", h.where);
    for (const Allocation* a : {&send_[i], &recv_[i]}) {
      const std::size_t bytes = a == &send_[i] ? send_bytes_ : recv_bytes_;
      Registration r{h.comm, h.device, nullptr, nullptr};
      if (windows) {
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 27, 0)
        ncclWindow_t w = nullptr;
        check_nccl(ncclCommWindowRegister(h.comm, a->ptr, bytes ? bytes : 1, &w, NCCL_WIN_COLL_SYMMETRIC),
                   "ncclCommWindowRegister", h.where, h.comm);
        r.window = w;
#endif
      } else {
        check_nccl(ncclCommRegister(h.comm, a->ptr, bytes ? bytes : 1, &r.handle), "ncclCommRegister", h.where, h.comm);
      }
      registrations_.push_back(r);
    }
  }
  if (windows) check_nccl(ncclGroupEnd(), "ncclGroupEnd (ncclCommWindowRegister)", homes.front().where);
}

void DeviceBuffers::release() noexcept {
  const bool windows = !registrations_.empty() && registrations_.front().window != nullptr;
  if (windows) ncclGroupStart();
  for (const auto& r : registrations_) {
    cudaSetDevice(r.device);
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 27, 0)
    if (r.window) ncclCommWindowDeregister(r.comm, static_cast<ncclWindow_t>(r.window));
#endif
    if (r.handle) ncclCommDeregister(r.comm, r.handle);
  }
  if (windows) ncclGroupEnd();
  registrations_.clear();
  for (auto* list : {&send_, &recv_}) {
    for (const auto& a : *list) {
      cudaSetDevice(a.device);
      if (a.nccl) {
        if (ncclMemFree(a.ptr) != ncclSuccess) std::fprintf(stderr, "pipebench: warning: ncclMemFree failed\n");
      } else {
        warn_cuda(cudaFree(a.ptr), "cudaFree");
      }
    }
    list->clear();
  }
}

}  // namespace pipebench
