// SPDX-License-Identifier: Apache-2.0
// The replay's GPU compute: a kernel that spins on the GPU's global timer (%globaltimer, ns) for a
// given time on `sms` blocks (0: one per SM), so NCCL kernels compete for SMs as in training. Plain
// C++ header; the kernel lives in replay_spin.cu.
#pragma once

#include <cstdint>
#include <memory>

namespace pipebench {

// The spin kernel with the device word its launches share their deadline through (one per stream
// that launches it; launches on one stream run one after another). RAII: frees the word.
class SpinKernel {
 public:
  SpinKernel();  // on the current device; throws Error naming the call
  // Launches on `stream` (a cudaStream_t) on `sms` blocks (0: one per SM) so that CUDA events around it
  // measure requested_ns: the launch latency measured at construction is taken off. Throws Error.
  void launch(void* stream, std::int64_t requested_ns, int sms);
  [[nodiscard]] std::int64_t overhead_ns() const { return overhead_ns_; }

 private:
  int device_ = 0;
  std::shared_ptr<void> slot_;  // 3 words: epoch claimed, deadline (ns), epoch published
  unsigned long long epoch_ = 0;
  std::int64_t overhead_ns_ = 0;  // launch latency seen by events, measured once
  void calibrate();
};

// SMs of the current device.
[[nodiscard]] int device_sms();

// Spins once for duration_ns on the current device and returns the time CUDA events measured, in ms,
// with (nccl_in_flight) or without an NCCL all-reduce of 256 MiB on a one-rank communicator running on
// a second stream (for the GPU test of the spin kernel's accuracy).
[[nodiscard]] double timed_spin_ms(std::int64_t duration_ns, int sms, bool nccl_in_flight);

}  // namespace pipebench
