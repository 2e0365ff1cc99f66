// SPDX-License-Identifier: Apache-2.0
// Merged Chrome trace of a job.
#include "trace/job_chrome.h"

#include "trace/chrome_trace_writer.h"
#include "trace/gzip_stream.h"
#include "trace/json_event_stream.h"
#include "trace/kineto_fields.h"

#if PB_HAVE_SQLITE
#include "trace/nsys_schema.h"
#include "trace/sqlite_db.h"
#endif

namespace pipebench {
namespace {

using json = nlohmann::json;

void kineto_events(ChromeTraceWriter& w, const RankBreakdown& r, std::int64_t offset_ns) {
  const auto in = open_trace_input(r.profile.path);
  (void)stream_json_events(*in, [&](const json& e) {
    auto cat = e.find("cat");
    if (cat == e.end() || !cat->is_string()) return;
    const auto& c = cat->get_ref<const std::string&>();
    if (c != "kernel" && c != "gpu_memcpy" && c != "gpu_memset") return;
    static const json kNone = json::object();
    auto a = e.find("args");
    const json& args = a != e.end() && a->is_object() ? *a : kNone;
    // Read as the trace reader reads them (kineto_fields.h): what it counted, the merged trace shows.
    const TimeField ts = kineto_time(e, "ts"), dur = kineto_time(e, "dur");
    auto device = kineto_int(args, "device");
    if (!device) device = kineto_int(e, "pid");
    if (!ts.usable || !dur.usable || !device || *device != r.device) return;  // the rank's device only
    const std::int64_t stream = kineto_int(args, "stream").value_or(kineto_int(e, "tid").value_or(0));
    auto name = e.find("name");
    w.thread(r.rank, stream, "stream " + std::to_string(stream), stream);
    w.complete(c, name != e.end() && name->is_string() ? name->get_ref<const std::string&>() : c, r.rank, stream,
               ts.ns + offset_ns, dur.ns);
  });
}

#if PB_HAVE_SQLITE
void nsys_events(ChromeTraceWriter& w, const RankBreakdown& r, std::int64_t offset_ns) {
  SqliteDb db(r.profile.path);
  const NsysSchema schema = probe_nsys_schema(db, false);
  auto st = db.prepare("SELECT k.start, k.\"end\", k.streamId, s.value FROM " + std::string(kKernelTable) +
                       " AS k JOIN StringIds AS s ON s.id = k." + schema.kernel_name_column +
                       " WHERE k.deviceId = ? AND k.start >= 0 AND k.\"end\" >= k.start");
  st.bind(1, r.device);
  while (st.step()) {
    if (st.is_null(0) || st.is_null(1) || st.is_null(2) || st.is_null(3)) continue;
    const std::int64_t stream = st.int64(2);
    w.thread(r.rank, stream, "stream " + std::to_string(stream), stream);
    w.complete("kernel", st.text(3), r.rank, stream, st.int64(0) + offset_ns, st.int64(1) - st.int64(0));
  }
}
#endif

}  // namespace

std::int64_t write_job_chrome_trace(const std::string& path, const JobProfile& job) {
  ChromeTraceWriter w("--chrome-trace", path, json{{"converted_by", "pipebench trace"}, {"ranks", job.ranks.size()}});
  for (std::size_t i = 0; i < job.ranks.size(); ++i) {
    const RankBreakdown& r = job.ranks[i];
    w.process(r.rank, "rank " + std::to_string(r.rank), r.rank);
    if (r.profile.source == "nsys-sqlite") {
#if PB_HAVE_SQLITE
      nsys_events(w, r, job.alignment.offset_ns[i]);
#endif
    } else {
      kineto_events(w, r, job.alignment.offset_ns[i]);
    }
  }
  w.finish();
  return w.events();
}

}  // namespace pipebench
