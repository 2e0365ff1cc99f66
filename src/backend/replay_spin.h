// SPDX-License-Identifier: Apache-2.0
// The replay's GPU compute: a kernel that spins on the GPU's global timer (%globaltimer, ns) for a
// given time on `sms` blocks (0: one per SM), so NCCL kernels compete for SMs as in training. Plain
// C++ header; the kernel lives in replay_spin.cu.
#pragma once

#include <cstdint>

namespace pipebench {

// Launches on `stream` (a cudaStream_t) on the current device. Throws Error naming the call.
void launch_spin(void* stream, std::int64_t duration_ns, int sms);

// SMs of the current device.
[[nodiscard]] int device_sms();

// Spins once for duration_ns on the current device and returns the time CUDA events measured, in ms,
// with (nccl_in_flight) or without an NCCL all-reduce of 256 MiB on a one-rank communicator running on
// a second stream (for the GPU test of the spin kernel's accuracy).
[[nodiscard]] double timed_spin_ms(std::int64_t duration_ns, int sms, bool nccl_in_flight);

}  // namespace pipebench
