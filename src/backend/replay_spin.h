// SPDX-License-Identifier: Apache-2.0
// The replay's GPU compute: a kernel that spins on the GPU's global timer (%globaltimer, ns) for a
// given time on `sms` blocks (0: one per SM), so NCCL kernels compete for SMs as in training. Plain
// C++ header; the kernel lives in replay_spin.cu.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

namespace pipebench {

// The spin kernel with the device word its launches share their deadline through (one per stream
// that launches it; launches on one stream run one after another). RAII: frees the word.
class SpinKernel {
 public:
  SpinKernel();  // on the current device; throws Error naming the call
  // Launches on `stream` (a cudaStream_t) on `sms` blocks (0: one per SM) so that CUDA events around it
  // measure requested_ns: the launch latency measured at construction is taken off. Throws Error.
  void launch(void* stream, std::int64_t requested_ns, int sms);
  // Feeds back what CUDA events measured around a launch of requested_ns: the launch latency under the
  // run's own load (an NCCL kernel on another stream adds a few microseconds to it) replaces the idle
  // calibration, as the median of the last kSamples launches, so the next launches last what they ask.
  void observe(std::int64_t requested_ns, std::int64_t measured_ns);

 private:
  static constexpr std::size_t kSamples = 9;
  int device_ = 0;
  std::shared_ptr<void> slot_;  // 3 words: epoch claimed, deadline (ns), epoch published
  unsigned long long epoch_ = 0;
  std::int64_t overhead_ns_ = 0;            // launch latency seen by events
  std::vector<std::int64_t> overheads_ns_;  // the last kSamples observed, oldest first
  void calibrate();
};

// SMs of the current device.
[[nodiscard]] int device_sms();

// What runs beside the spin kernel in timed_spin_ms.
enum class SpinNeighbour {
  kNone,
  // NCCL's send/recv kernel: a 256 MiB send to itself and receive from itself in one group on a
  // one-rank communicator, queued 16 times on a second stream. It runs one persistent block per
  // channel, as NCCL's collective and P2P kernels between ranks do in training.
  kNcclSendRecv,
  // A 256 MiB ncclAvg all-reduce on a one-rank communicator: NCCL runs it as its oneRankReduce
  // kernel, a grid of many short blocks that the GPU dispatches before any later kernel's blocks.
  kNcclOneRankReduce,
};

// Launches one SpinKernel `launches` times for duration_ns each on the current device, with `neighbour`
// kept running on a second stream, feeding each launch's CUDA-event time back (observe), as the replay
// does; returns what the events measured per launch, in ms (for the GPU test of the spin's accuracy).
[[nodiscard]] std::vector<double> timed_spins_ms(std::int64_t duration_ns, int sms, SpinNeighbour neighbour,
                                                 int launches);

}  // namespace pipebench
