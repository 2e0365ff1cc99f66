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
// Communication kernel runs kept per kind for clock alignment, and kinds kept per device: enough to find
// the first collective all ranks ran and to check the alignment on the runs after it, bounded.
inline constexpr std::size_t kMaxCommMarks = 16;
// Distinct kernel names one file may hold: a training step's profile has a few thousand (templated GEMM,
// NCCL and elementwise kernels); each name is kept once per device and stream it ran on, so names without
// bound are memory without bound (a 4 MB gzip of 400,000 unique 600-character names asked for 2.3 GB).
inline constexpr std::size_t kMaxTraceKernelNames = 1 << 16;
inline constexpr std::size_t kMaxCommMarkKinds = 64;

class ProfileBuilder {
 public:
  // One kernel on the device timeline; calls for a device must come in non-decreasing start order.
  void timeline(int device, std::int64_t start_ns, std::int64_t end_ns, bool comm);
  // One kernel into the breakdown, under `name` (a kernel name, or an NVTX range text).
  void row(int device, std::int64_t stream, const std::string& name, std::int64_t duration_ns, bool comm,
           bool nvtx_range);
  // One memcpy (memset) on the device, counted apart from kernels (its time goes to active()).
  void memory(int device, std::int64_t bytes, bool memset);
  // One kernel or memory operation into the device's active time; calls for a device must come in
  // non-decreasing start order (kernels and memory operations merged). Without any, active = busy.
  void active(int device, std::int64_t start_ns, std::int64_t end_ns);
  // A run of a communication kernel kind, in start order per kind: the first kMaxCommMarks are kept.
  void comm_mark(int device, const std::string& key, std::int64_t start_ns, std::int64_t end_ns);
  // One execution of a collective.
  void collective(int device, const CollectiveRow& c);
  void device_name(int device, const std::string& name);

  // Devices by id; rows by total time (largest first, then name); collectives by op, elements.
  [[nodiscard]] std::vector<DeviceProfile> finish() const;

 private:
  struct Device {
    bool any = false;
    std::int64_t first_ns = 0, last_ns = 0, kernels = 0;
    IntervalUnion busy, comm, compute;
    bool any_active = false;
    std::int64_t active_first_ns = 0, active_last_ns = 0;
    std::int64_t memcpy_count = 0, memset_count = 0, memcpy_bytes = 0, memset_bytes = 0;
    IntervalUnion active;
    std::map<std::string, std::vector<std::pair<std::int64_t, std::int64_t>>> marks;
    std::string name;
    std::map<std::pair<std::int64_t, std::string>, KernelRow> rows;
    std::map<std::tuple<std::string, std::int64_t, std::string, int, std::string, std::int64_t>, CollectiveRow>
        collectives;
  };
  std::map<int, Device> devices_;
};

}  // namespace pipebench
