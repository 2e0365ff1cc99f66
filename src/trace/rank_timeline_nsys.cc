// SPDX-License-Identifier: Apache-2.0
// One GPU rank's timeline from an Nsight Systems SQLite export (trace-formats.md C1): the kernels of the device
// with the most of them (NCCL's as the calls: SendRecv P2P, the others collectives by their name), ProfilerStep
// NVTX ranges where torch.profiler's record_function emitted them (emit_nvtx), on the wall clock of
// TARGET_INFO_SESSION_START_TIME.utcEpochNs.
#include "trace/rank_timeline.h"

#if PB_HAVE_SQLITE

#include <algorithm>
#include <unordered_map>

#include "core/error.h"
#include "trace/kernel_names.h"
#include "trace/nsys_schema.h"
#include "trace/sqlite_db.h"

namespace pipebench {
namespace {

std::int64_t session_start(const SqliteDb& db, bool& aligned) {
  const auto tables = db.tables();
  if (std::find(tables.begin(), tables.end(), "TARGET_INFO_SESSION_START_TIME") == tables.end()) return 0;
  const auto cols = db.columns("TARGET_INFO_SESSION_START_TIME");
  if (std::find(cols.begin(), cols.end(), "utcEpochNs") == cols.end()) return 0;
  auto st = db.prepare("SELECT utcEpochNs FROM TARGET_INFO_SESSION_START_TIME LIMIT 1");
  if (!st.step() || st.is_null(0) || !st.is_integer(0) || st.int64(0) < 0) return 0;
  aligned = true;
  return st.int64(0);
}

void read_steps(const SqliteDb& db, const NsysSchema& s, std::int64_t base, RankTimeline& t) {
  if (!s.nvtx || (!s.nvtx_text && !s.nvtx_text_id)) return;
  const std::string text = s.nvtx_text && s.nvtx_text_id ? "COALESCE(n.text, v.value)"
                           : s.nvtx_text                 ? "n.text"
                                                         : "v.value";
  const std::string join = s.nvtx_text_id ? " LEFT JOIN StringIds AS v ON v.id = n.textId" : "";
  auto st = db.prepare("SELECT n.start, n.\"end\" FROM " + std::string(kNvtxTable) + " AS n" + join + " WHERE " + text +
                       " LIKE 'ProfilerStep#%' AND n.\"end\" IS NOT NULL ORDER BY n.start");
  while (st.step()) {
    if (!st.is_integer(0) || !st.is_integer(1) || st.int64(1) < st.int64(0)) continue;
    t.steps.push_back({base + st.int64(0), base + st.int64(1)});
  }
}

}  // namespace

RankTimeline read_rank_timeline_nsys(const std::string& path) {
  const SqliteDb db(path);
  const NsysSchema schema = probe_nsys_schema(db, false);
  RankTimeline t;
  t.path = path;
  t.gpu = true;
  const std::int64_t base = session_start(db, t.aligned);
  auto busiest = db.prepare(std::string("SELECT deviceId FROM ") + kKernelTable +
                            " GROUP BY deviceId ORDER BY COUNT(*) DESC, deviceId LIMIT 1");
  if (!busiest.step() || busiest.is_null(0)) throw UsageError(path + ": no kernels in the export");
  const std::int64_t device = busiest.int64(0);
  t.what = "kernels of GPU " + std::to_string(device);
  auto name_of = db.prepare("SELECT value FROM StringIds WHERE id = ?");
  std::unordered_map<std::int64_t, std::string> ops;  // name id -> "" (compute) or the NCCL call
  auto st = db.prepare("SELECT start, \"end\", " + schema.kernel_name_column + " FROM " + kKernelTable +
                       " WHERE deviceId = ? ORDER BY start");
  st.bind(1, device);
  while (st.step()) {
    if (!st.is_integer(0) || !st.is_integer(1) || !st.is_integer(2) || st.int64(1) < st.int64(0)) continue;
    const auto [it, fresh] = ops.try_emplace(st.int64(2));
    if (fresh) {
      name_of.reset();
      name_of.bind(1, st.int64(2));
      const std::string name = name_of.step() && !name_of.is_null(0) ? std::string(name_of.text(0)) : "";
      it->second = is_nccl_kernel(name) ? nccl_kernel_call(name) : "";
    }
    const TimeSpan at{base + st.int64(0), base + st.int64(1)};
    if (it->second.empty()) {
      t.compute.push_back(at);
    } else {
      t.comms.push_back({at, it->second == "sendrecv", it->second});
    }
  }
  read_steps(db, schema, base, t);
  return t;
}

}  // namespace pipebench

#endif
