// SPDX-License-Identifier: Apache-2.0
// The trace file ("schema": "pipebench.trace/1", `trace --json`, results/README.md): what a profile
// showed per device, times in microseconds and shares of the profiled span.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "io/trace_job_io.h"
#include "trace/plan_check.h"
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

// Empty format_version and damage: null in the file; nccl_ranges and nccl_payload_sizes: 0 when absent
// (files from before they were counted).
struct TraceFile : ProfileSummary {
  std::string tool_version;
  std::vector<TraceDevice> devices;
  // The plan check (trace --plan) as trace/plan_check.h writes it; read back as an object only.
  std::optional<nlohmann::json> plan_check;
  // The job view (trace DIR|FILE...): read back only (trace/job_json.h writes its parts); empty for one profile.
  TraceJobView job;
};

// check: trace --plan's, which gives each device its rank; nullptr without one.
[[nodiscard]] TraceFile trace_file(const TraceProfile& p, const PlanCheck* check);
// The one-profile file; a job's parts are added by trace/job_json.h.
[[nodiscard]] nlohmann::json trace_to_json(const TraceFile& t);

// Throws UsageError naming `where` and the field for another schema, a missing or mistyped field.
[[nodiscard]] TraceFile trace_from_json(const nlohmann::json& j, const std::string& where);

}  // namespace pipebench
