// SPDX-License-Identifier: Apache-2.0
// Which device each host process launched its kernels on: a collective seen only on the CPU side (an
// NVTX range with no kernel inside, a record_param_comms op) is put on its process's device.
#pragma once

#include <cstdint>
#include <map>

namespace pipebench {

class ProcessDevices {
 public:
  void launched(std::int64_t pid, int device) { ++kernels_[pid][device]; }
  // The device the process launched most kernels on; -1 when it launched none.
  [[nodiscard]] int device_of(std::int64_t pid) const {
    auto it = kernels_.find(pid);
    if (it == kernels_.end()) return -1;
    int best = -1;
    std::int64_t most = -1;
    for (const auto& [device, n] : it->second)
      if (n > most) best = device, most = n;
    return best;
  }

 private:
  std::map<std::int64_t, std::map<int, std::int64_t>> kernels_;
};

}  // namespace pipebench
