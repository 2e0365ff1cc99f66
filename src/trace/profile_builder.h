// SPDX-License-Identifier: Apache-2.0
// Accumulates a profile as its rows stream by: per device the span and the unions of kernel time
// (needs kernels in start order), the breakdown rows (any order) and the collectives (any order).
// Memory grows with devices x distinct names, never with the number of rows.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "trace/interval_union.h"
#include "trace/profile.h"

namespace pipebench {

// Readers skip (and count) rows outside these bounds rather than build a profile from them.
// A device id beyond this is not a GPU of one trace.
inline constexpr std::int64_t kMaxTraceDevice = 1 << 20;
// A time beyond 2^62 ns (146 years) is not a time of a profiled run (epoch-based times are about 1.8e18
// ns); sums of two in-range times cannot overflow int64.
inline constexpr double kMaxTraceTimeNs = 4611686018427387904.0;

class ProfileBuilder {
 public:
  // One kernel on the device timeline; calls for a device must come in non-decreasing start order.
  void timeline(int device, std::int64_t start_ns, std::int64_t end_ns, bool comm);
  // One kernel into the breakdown, under `name` (a kernel name, or an NVTX range text).
  void row(int device, std::int64_t stream, const std::string& name, std::int64_t duration_ns, bool comm,
           bool nvtx_range);
  // One execution of a collective.
  void collective(int device, const CollectiveRow& c);
  void device_name(int device, const std::string& name);
  [[nodiscard]] bool has_device(int device) const { return devices_.count(device) != 0; }

  // Devices by id; rows by total time (largest first, then name); collectives by op, elements.
  [[nodiscard]] std::vector<DeviceProfile> finish() const;

 private:
  struct Device {
    bool any = false;
    std::int64_t first_ns = 0, last_ns = 0, kernels = 0;
    IntervalUnion busy, comm;
    std::string name;
    std::map<std::pair<std::int64_t, std::string>, KernelRow> rows;
    std::map<std::tuple<std::string, std::int64_t, std::string, int, std::string>, CollectiveRow> collectives;
  };
  std::map<int, Device> devices_;
};

}  // namespace pipebench
