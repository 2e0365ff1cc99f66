// SPDX-License-Identifier: Apache-2.0
// DeviceBuffers: the send and receive buffers of every local GPU, from ncclMemAlloc (cuMem memory, what
// nccl-tests allocates where NCCL has it) or cudaMalloc (--alloc), optionally registered with each
// GPU's communicator (-R 1: ncclCommRegister; -R 2: ncclCommWindowRegister, symmetric). Registrations
// are released before the memory, the memory when the object goes. CUDA-only header.
#pragma once

#include <cuda_runtime.h>
#include <nccl.h>

#include <cstddef>
#include <string>
#include <vector>

#include "backend/backend.h"

namespace pipebench {

// Where one local rank's buffers live.
struct BufferHome {
  int device = 0;
  ncclComm_t comm = nullptr;
  std::string where;  // for error messages
};

class DeviceBuffers final : public Buffers {
 public:
  // Collective over the communicators when options.registration == 2 (window registration).
  // Throws Error naming the failing call; UsageError for -R 2 with --alloc cuda.
  DeviceBuffers(const std::vector<BufferHome>& homes, std::size_t send_bytes, std::size_t recv_bytes,
                const BufferOptions& options);
  ~DeviceBuffers() override;
  DeviceBuffers(const DeviceBuffers&) = delete;
  DeviceBuffers& operator=(const DeviceBuffers&) = delete;

  void* send(int local) const override;
  void* recv(int local) const override;
  std::size_t send_bytes() const override { return send_bytes_; }
  std::size_t recv_bytes() const override { return recv_bytes_; }

 private:
  struct Allocation {
    void* ptr = nullptr;
    int device = 0;
    bool nccl = false;
  };
  struct Registration {
    ncclComm_t comm = nullptr;
    int device = 0;
    void* handle = nullptr;  // -R 1
    void* window = nullptr;  // -R 2 (an ncclWindow_t)
  };
  Allocation allocate(const BufferHome& home, std::size_t bytes, BufferAlloc alloc);
  void register_all(const std::vector<BufferHome>& homes, int mode);
  void release() noexcept;

  std::vector<Allocation> send_, recv_;
  std::vector<Registration> registrations_;
  std::size_t send_bytes_, recv_bytes_;
};

}  // namespace pipebench
