// SPDX-License-Identifier: Apache-2.0
// The trace file ("schema": "pipebench.trace/1", `trace --json`, results/README.md): what a profile
// showed per device, times in microseconds and shares of the profiled span.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "trace/profile.h"

namespace pipebench {

inline constexpr const char* kTraceSchema = "pipebench.trace/1";

struct TraceKernel {
  std::string name;
  std::int64_t stream = -1;
  double share = 0;
  std::int64_t count = 0;
  double total_us = 0, min_us = 0, max_us = 0, mean_us = 0;
  bool comm = false, nvtx_range = false;
};

struct TraceCollective {
  std::string op;
  std::optional<std::int64_t> elements, bytes;
  std::string dtype;  // empty: unknown (null in the file)
  std::int64_t count = 0;
  std::optional<int> group_size;
  std::string source;
};

struct TraceDevice {
  int device = 0;
  std::string name;         // empty: unknown (null in the file)
  std::optional<int> rank;  // from the plan check, or the profile's one rank
  double span_us = 0, busy_share = 0, comm_share = 0, comm_us = 0;
  std::int64_t kernel_count = 0;
  std::vector<TraceKernel> kernels;
  std::vector<TraceCollective> collectives;
};

struct TraceFile {
  std::string tool_version, file, source, format_version, by;  // format_version empty: null in the file
  std::int64_t kernel_rows = 0, skipped_rows = 0;
  std::map<std::string, std::int64_t> skipped;
  std::int64_t nvtx_ranges = 0, collective_texts = 0, unparsed_texts = 0;
  std::int64_t nccl_ranges = 0, nccl_payload_sizes = 0;  // absent in files from before they were counted: 0
  int profiler_steps = 0;
  std::optional<int> rank, world_size;
  std::string damage;  // empty: null in the file
  std::vector<std::string> notes;
  std::vector<TraceDevice> devices;
  // The plan check (trace --plan) as trace/plan_check.h writes it; read back as an object only.
  std::optional<nlohmann::json> plan_check;
  // The job view (trace DIR|FILE...; trace/job_json.h writes them): "ranks" (array), "alignment",
  // "compare", "model_check" (objects). Read back as they are.
  std::optional<nlohmann::json> ranks, alignment, compare, model_check;
};

// device_ranks: the global rank of each device id (from the plan check), empty without one.
[[nodiscard]] TraceFile trace_file(const TraceProfile& p, const std::map<int, int>& device_ranks,
                                   std::optional<nlohmann::json> plan_check);
[[nodiscard]] nlohmann::json trace_to_json(const TraceFile& t);

// Throws UsageError naming `where` and the field for another schema, a missing or mistyped field.
[[nodiscard]] TraceFile trace_from_json(const nlohmann::json& j, const std::string& where);

}  // namespace pipebench
