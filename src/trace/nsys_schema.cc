// SPDX-License-Identifier: Apache-2.0
// Nsight Systems export schema probe.
#include "trace/nsys_schema.h"

#include <algorithm>
#include <set>

#include "core/error.h"
#include "trace/sqlite_db.h"

namespace pipebench {
namespace {

bool has_all(const std::set<std::string>& cols, std::initializer_list<const char*> names) {
  return std::all_of(names.begin(), names.end(), [&](const char* n) { return cols.count(n) != 0; });
}

std::string join(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : ", ") + s;
  return out;
}

}  // namespace

NsysSchema probe_nsys_schema(const SqliteDb& db, bool prefer_demangled) {
  const auto table_list = db.tables();
  const std::set<std::string> tables(table_list.begin(), table_list.end());
  auto columns = [&](const char* t) {
    const auto c = db.columns(t);
    return std::set<std::string>(c.begin(), c.end());
  };
  std::vector<std::string> missing;
  const auto view_list = db.views();
  for (const char* t : {"StringIds", kKernelTable}) {
    if (tables.count(t)) continue;
    if (std::find(view_list.begin(), view_list.end(), t) != view_list.end()) {
      throw UsageError(db.path() + ": " + t +
                       " is a view, not a table (nsys export writes tables; a view is a query that may not end)");
    }
    missing.emplace_back(t);
  }
  if (!missing.empty()) {
    const bool nsys_like =
        tables.count("StringIds") || tables.count("META_DATA_EXPORT") || tables.count("TARGET_INFO_GPU");
    if (nsys_like && missing.size() == 1 && missing[0] == kKernelTable) {
      throw UsageError(db.path() + ": an Nsight Systems export without " + kKernelTable +
                       ": the profile holds no CUDA kernels (profile with nsys -t cuda)");
    }
    throw UsageError(db.path() + ": not an Nsight Systems SQLite export (missing tables: " + join(missing) + ")");
  }

  NsysSchema s;
  const auto k = columns(kKernelTable);
  std::vector<std::string> kmissing;
  for (const char* c : {"start", "end", "deviceId", "streamId"}) {
    if (!k.count(c)) kmissing.emplace_back(c);
  }
  const char* first = prefer_demangled ? "demangledName" : "shortName";
  const char* second = prefer_demangled ? "shortName" : "demangledName";
  if (k.count(first)) {
    s.kernel_name_column = first;
  } else if (k.count(second)) {
    s.kernel_name_column = second;
    s.notes.push_back(std::string("kernel names from ") + second + " (this export has no " + first + " column)");
  } else {
    kmissing.emplace_back("shortName or demangledName");
  }
  if (!kmissing.empty()) {
    throw UsageError(db.path() + ": " + kKernelTable + " lacks columns: " + join(kmissing));
  }
  s.kernel_global_pid = k.count("globalPid") != 0;

  if (tables.count(kRuntimeTable)) {
    const auto r = columns(kRuntimeTable);
    s.runtime = has_all(r, {"start", "end", "globalTid", "correlationId"}) && k.count("correlationId");  // joined on it
    s.runtime_name = s.runtime && r.count("nameId");
  }
  if (tables.count(kNvtxTable)) {
    const auto n = columns(kNvtxTable);
    s.nvtx = has_all(n, {"start", "end", "eventType", "globalTid"});
    s.nvtx_text = n.count("text") != 0;
    s.nvtx_text_id = n.count("textId") != 0;
    s.nvtx_json = n.count("jsonText") != 0;
    s.nvtx = s.nvtx && (s.nvtx_text || s.nvtx_text_id);
  }
  if (s.nvtx) {
    // Event type ids by name (trace-formats.md C1: look them up rather than hard-coding).
    if (tables.count("ENUM_NSYS_EVENT_TYPE") && has_all(columns("ENUM_NSYS_EVENT_TYPE"), {"id", "name"})) {
      auto st = db.prepare("SELECT id, name FROM ENUM_NSYS_EVENT_TYPE");
      while (st.step()) {
        const auto name = st.text(1);
        if (name == "NvtxPushPopRange") s.push_pop_type = st.int64(0);
        if (name == "NvtxStartEndRange") s.start_end_type = st.int64(0);
        if (name == "NvtxMark") s.mark_type = st.int64(0);
      }
    } else {
      s.notes.emplace_back(
          "no ENUM_NSYS_EVENT_TYPE table: NVTX event types 59 (push/pop), 60 (start/end), 34 (mark) assumed");
    }
  }
  if (tables.count("META_DATA_EXPORT") && has_all(columns("META_DATA_EXPORT"), {"name", "value"})) {
    auto st = db.prepare("SELECT value FROM META_DATA_EXPORT WHERE name = 'EXPORT_SCHEMA_VERSION'");
    if (st.step()) s.version = std::string(st.text(0));
  }
  s.gpu_info = tables.count("TARGET_INFO_GPU") && has_all(columns("TARGET_INFO_GPU"), {"id", "name"});
  return s;
}

}  // namespace pipebench
