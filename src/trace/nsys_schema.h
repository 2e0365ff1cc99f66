// SPDX-License-Identifier: Apache-2.0
// Which tables and columns an Nsight Systems SQLite export has. The schema changes between nsys
// versions (trace-formats.md C1: tables are created lazily, minor versions rename columns), so the
// reader asks PRAGMA table_info instead of assuming, and falls back where a column is missing.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace pipebench {

class SqliteDb;

inline constexpr const char* kKernelTable = "CUPTI_ACTIVITY_KIND_KERNEL";
inline constexpr const char* kRuntimeTable = "CUPTI_ACTIVITY_KIND_RUNTIME";
inline constexpr const char* kNvtxTable = "NVTX_EVENTS";

struct NsysSchema {
  std::string version;             // META_DATA_EXPORT EXPORT_SCHEMA_VERSION; empty when absent
  std::string kernel_name_column;  // shortName (base name) or demangledName
  bool kernel_global_pid = false;  // globalPid
  bool runtime = false;            // CUPTI_ACTIVITY_KIND_RUNTIME with start, end, globalTid, correlationId
  bool runtime_name = false;       // its nameId
  bool nvtx = false;               // NVTX_EVENTS with start, end, eventType, globalTid
  bool nvtx_text = false, nvtx_text_id = false;
  bool nvtx_json = false;            // NVTX_EVENTS.jsonText: payloads (nsys export --include-json)
  std::int64_t push_pop_type = 59;   // ENUM_NSYS_EVENT_TYPE NvtxPushPopRange
  std::int64_t start_end_type = 60;  // NvtxStartEndRange
  std::int64_t mark_type = 34;       // NvtxMark
  bool gpu_info = false;             // TARGET_INFO_GPU(id, name)
  std::vector<std::string> notes;    // fallbacks taken
};

// Throws UsageError naming the file: not an nsys export (which tables are missing), no kernel table
// (the profile has no CUDA kernels), or a kernel table without the columns every version has had.
[[nodiscard]] NsysSchema probe_nsys_schema(const SqliteDb& db, bool prefer_demangled);

}  // namespace pipebench
