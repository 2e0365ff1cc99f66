// SPDX-License-Identifier: Apache-2.0
// What `pipebench trace` reads out of a profile: per device, where the GPU time went (kernels or NVTX
// ranges), how much of it was communication, and which collectives moved how many elements.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace pipebench {

// Profiles count in nanoseconds; the tables, the JSON files and Chrome traces show microseconds.
inline double ns_to_us(std::int64_t ns) { return static_cast<double>(ns) / 1000.0; }

// One line of the per-device breakdown: a kernel name (or, with --by nvtx, the innermost NVTX range
// of the thread that launched it) on one stream.
struct KernelRow {
  std::string name;
  std::int64_t stream = -1;
  bool comm = false;        // an NCCL kernel (or, with --by nvtx, a range all of whose kernels are NCCL's)
  bool nvtx_range = false;  // name is an NVTX range text, not a kernel name
  std::int64_t count = 0;
  std::int64_t total_ns = 0;
  std::int64_t min_ns = std::numeric_limits<std::int64_t>::max();
  std::int64_t max_ns = 0;
};

// One collective or P2P operation as the profile saw it, by (op, elements, dtype).
struct CollectiveRow {
  std::string op;              // all_reduce, all_gather, reduce_scatter, broadcast, send, recv, alltoall, ...
  std::int64_t elements = -1;  // whole tensor (all_gather: the gathered output, reduce_scatter: the input); -1 unknown
  std::string dtype;           // pipebench dtype name (bfloat16, float, ...); empty when unknown
  int element_bytes = 0;       // 0 when the dtype is unknown
  std::int64_t count = 0;
  int group_size = -1;  // -1 unknown
  std::string source;   // nvtx, record_param_comms, kernel_args, nccl-nvtx
  // nccl-nvtx: the size NCCL's own NVTX payload gives (count x datatype size of the call: all_gather's
  // send buffer and reduce_scatter's receive buffer, one rank's part); -1 otherwise.
  std::int64_t nccl_bytes = -1;
  [[nodiscard]] std::optional<std::int64_t> bytes() const {
    if (elements >= 0 && element_bytes > 0) return elements * element_bytes;
    if (nccl_bytes >= 0) return nccl_bytes;
    return std::nullopt;
  }
};

struct DeviceProfile {
  int device = 0;             // the profile's device id (nsys deviceId, Kineto pid of GPU events); -1: unknown
  std::string name;           // GPU model when the profile says it
  std::int64_t first_ns = 0;  // first kernel start .. last kernel end on this device: the profiled span
  std::int64_t last_ns = 0;
  std::int64_t busy_ns = 0;  // union of all kernel intervals
  std::int64_t comm_ns = 0;  // union of communication kernel intervals
  std::int64_t kernels = 0;
  std::vector<KernelRow> rows;             // by total time, largest first
  std::vector<CollectiveRow> collectives;  // by op, then elements
  // For the job view (trace DIR|FILE...): the temporal breakdown of Holistic Trace Analysis
  // (hta/analyzers/breakdown_analysis.py get_temporal_breakdown, communication_analysis.py
  // get_comm_comp_overlap): compute = union of non-NCCL kernels, active = union of kernels and memory
  // operations (memcpy/memset) over [active_first_ns, active_last_ns].
  std::int64_t compute_ns = 0;
  std::int64_t memcpy_count = 0, memset_count = 0, memcpy_bytes = 0, memset_bytes = 0;
  std::int64_t active_ns = 0, active_first_ns = 0, active_last_ns = 0;
  // The first few ends of each communication kernel kind (by kernel name or collective), for aligning
  // the clocks of several ranks: key -> [start_ns, end_ns] of its first kMaxCommMarks runs, in order.
  std::map<std::string, std::vector<std::pair<std::int64_t, std::int64_t>>> comm_marks;
  [[nodiscard]] std::int64_t span_ns() const { return last_ns - first_ns; }
  [[nodiscard]] double share(std::int64_t ns) const {
    return span_ns() > 0 ? static_cast<double>(ns) / static_cast<double>(span_ns()) : 0.0;
  }
};

// What a profile says about itself, apart from its devices: the reader's (TraceProfile) and the trace
// file's (io/trace_io.h TraceFile, which names path "file" and skipped_by_reason "skipped").
struct ProfileSummary {
  std::string path;
  std::string source;            // "nsys-sqlite" or "kineto-json"
  std::string format_version;    // nsys EXPORT_SCHEMA_VERSION or Kineto schemaVersion; empty if absent
  std::string by = "kernel";     // "kernel" or "nvtx"
  std::int64_t kernel_rows = 0;  // kernel rows read (skipped ones not included)
  std::int64_t skipped_rows = 0;
  std::map<std::string, std::int64_t> skipped_by_reason;
  std::int64_t nvtx_ranges = 0;         // push/pop ranges (nsys) or user annotations (Kineto) seen
  std::int64_t collective_texts = 0;    // NVTX texts naming a collective ("nccl:...")
  std::int64_t unparsed_texts = 0;      // of those, texts whose sizes could not be parsed
  std::int64_t nccl_ranges = 0;         // NCCL's own API ranges ("ncclAllReduce", ...; nsys)
  std::int64_t nccl_payload_sizes = 0;  // of those, ranges whose exported payload gave a size
  int profiler_steps = 0;               // Kineto "ProfilerStep#N" ranges
  std::optional<int> rank, world_size;  // Kineto distributedInfo
  std::vector<std::string> notes;
  std::string damage;  // non-empty: reading stopped early for this reason

  void skip(const std::string& reason, std::int64_t n = 1) {
    skipped_rows += n;
    skipped_by_reason[reason] += n;
  }
};

struct TraceProfile : ProfileSummary {
  // Wall-clock time (ns since the Unix epoch) of the profile's time 0: Kineto baseTimeNanoseconds, nsys
  // TARGET_INFO_SESSION_START_TIME.utcEpochNs. Absent when the profile does not say.
  std::optional<std::int64_t> epoch_ns;
  std::vector<DeviceProfile> devices;  // by device id
};

}  // namespace pipebench
