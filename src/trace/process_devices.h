// SPDX-License-Identifier: Apache-2.0
// Which device each host process launched its kernels on: a collective seen only on the CPU side (an
// NVTX range with no kernel inside, a record_param_comms op) is put on its process's device.
#pragma once

#include <algorithm>
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
    return std::max_element(it->second.begin(), it->second.end(),
                            [](const auto& a, const auto& b) { return a.second < b.second; })
        ->first;
  }

 private:
  std::map<std::int64_t, std::map<int, std::int64_t>> kernels_;
};

}  // namespace pipebench
