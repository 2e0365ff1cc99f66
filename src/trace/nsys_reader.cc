// SPDX-License-Identifier: Apache-2.0
// Nsight Systems SQLite reader: pass 1 streams kernels in start order (timeline, breakdown, kernel
// events); pass 2 merges kernel launches with NVTX push/pop ranges per thread (attribution, collective
// texts, ranges projected onto the GPU); then NVTX ranges and CUDA API calls for the Chrome trace.
#include "trace/nsys_reader.h"

#include "core/error.h"
#include "core/utf8.h"

#if PB_HAVE_SQLITE

#include <algorithm>
#include <initializer_list>
#include <map>
#include <memory>
#include <optional>
#include <unordered_map>

#include "trace/collective_text.h"
#include "trace/kernel_names.h"
#include "trace/nccl_nvtx_payload.h"
#include "trace/nsys_schema.h"
#include "trace/nvtx_sweep.h"
#include "trace/process_devices.h"
#include "trace/profile_builder.h"
#include "trace/sqlite_db.h"

namespace pipebench {
namespace {

// globalTid / globalPid are serialized ids: PID in bits 24-47, TID in the low 24 bits (C1).
std::int64_t os_pid(std::int64_t global_id) { return (global_id >> 24) & 0xFFFFFF; }
std::int64_t os_tid(std::int64_t global_id) { return global_id & 0xFFFFFF; }

struct KernelName {
  std::string name;
  bool comm = false;
  std::optional<TraceDType> dtype;
};

// True when every column given holds an integer (not NULL, REAL, TEXT or BLOB).
bool integers(const SqliteStatement& st, std::initializer_list<int> cols) {
  return std::all_of(cols.begin(), cols.end(), [&st](int c) { return st.is_integer(c); });
}

// StringIds lookups, one indexed query per distinct id (id is the primary key); kernel names repeat,
// so the cache stays as small as the set of distinct names.
class NameCache {
 public:
  explicit NameCache(const SqliteDb& db) : lookup_(db.prepare("SELECT value FROM StringIds WHERE id = ?")) {}
  const KernelName* get(std::int64_t id) {
    auto [it, fresh] = cache_.try_emplace(id);
    if (fresh) {
      lookup_.reset();
      lookup_.bind(1, id);
      if (lookup_.step() && !lookup_.is_null(0)) {
        const std::string name = utf8_replaced(lookup_.text(0));  // JSON output holds UTF-8 only
        it->second = KernelName{name, is_nccl_kernel(name), nccl_kernel_dtype(name)};
      }
    }
    return it->second ? &*it->second : nullptr;
  }

 private:
  SqliteStatement lookup_;
  std::unordered_map<std::int64_t, std::optional<KernelName>> cache_;
};

class NsysReader {
 public:
  NsysReader(const std::string& path, const TraceOptions& o) : db_(path), options_(o) {
    schema_ = probe_nsys_schema(db_, o.demangled);
    profile_.path = path;
    profile_.source = "nsys-sqlite";
    profile_.format_version = schema_.version;
    profile_.by = o.by_nvtx ? "nvtx" : "kernel";
    profile_.notes = schema_.notes;
    if (!o.chrome_trace_path.empty()) {
      trace_ = std::make_unique<ChromeTraceWriter>(
          "--chrome-trace", o.chrome_trace_path, nlohmann::json{{"source", path}, {"converted_by", "pipebench trace"}});
    }
  }

  TraceProfile read() {
    names_.emplace(db_);
    read_gpu_names();
    const std::pair<const char*, void (NsysReader::*)()> passes[] = {
        {"kernels", &NsysReader::pass_kernels},
        {"NVTX attribution", &NsysReader::pass_nvtx},
        {"NVTX ranges", &NsysReader::pass_nvtx_events},
        {"CUDA API calls", &NsysReader::pass_cuda_api},
        {"session start", &NsysReader::read_session_start},
        {"memcpy/memset", &NsysReader::pass_memory},
    };
    for (const auto& [what, pass] : passes) {
      try {
        (this->*pass)();
      } catch (const SqliteError& e) {
        profile_.damage = std::string("reading ") + what + " stopped: " + e.what();
        break;
      }
    }
    for (const auto& [device, name] : gpu_names_) builder_.device_name(device, name);
    profile_.devices = builder_.finish();
    if (!schema_.runtime || !schema_.nvtx) {
      profile_.notes.emplace_back(
          std::string("no ") + (!schema_.nvtx ? "NVTX_EVENTS" : kRuntimeTable) +
          " in this export: no NVTX attribution and no collective sizes (profile with nsys -t cuda,nvtx)");
    }
    if (trace_) trace_->finish();
    return std::move(profile_);
  }

 private:
  void read_gpu_names() {
    if (!schema_.gpu_info) return;
    auto st = db_.prepare("SELECT id, name FROM TARGET_INFO_GPU");
    while (st.step()) {
      if (!st.is_null(0) && !st.is_null(1)) gpu_names_[static_cast<int>(st.int64(0))] = std::string(st.text(1));
    }
  }

  void gpu_track(int device, std::int64_t stream) {
    if (!trace_) return;
    auto it = gpu_names_.find(device);
    trace_->process(kGpuPidBase + device,
                    "GPU " + std::to_string(device) + (it != gpu_names_.end() ? " (" + it->second + ")" : ""), device);
    if (stream >= 0) trace_->thread(kGpuPidBase + device, stream, "stream " + std::to_string(stream), stream);
  }

  void host_track(std::int64_t global_tid) {
    if (!trace_) return;
    const auto pid = os_pid(global_tid), tid = os_tid(global_tid);
    trace_->process(pid, "process " + std::to_string(pid), kGpuPidBase + pid);
    trace_->thread(pid, tid, "thread " + std::to_string(tid), tid);
  }

  // Why a kernel row's times or device cannot be used, or nullptr. Pass 2 drops the same rows uncounted.
  static const char* bad_kernel_row(std::int64_t start, std::int64_t end, std::int64_t device) {
    if (start < 0) return "kernel row with a negative start";
    if (end < start) return "kernel row with end before start";
    if (device < 0 || device > kMaxTraceDevice) return "kernel row with deviceId out of range";
    return nullptr;
  }

  // Pass 1: every kernel in start order.
  void pass_kernels() {
    const std::string name = schema_.kernel_name_column;
    const std::string pid = schema_.kernel_global_pid ? "globalPid" : "NULL";
    // The kernel table's rowids run 1..rows in nsys exports: the largest is the row count, found at once.
    std::int64_t total = 0, done = 0;
    if (options_.progress) {
      auto count = db_.prepare(std::string("SELECT MAX(rowid) FROM ") + kKernelTable);
      if (count.step() && !count.is_null(0)) total = count.int64(0);
    }
    auto st = db_.prepare("SELECT start, \"end\", deviceId, streamId, " + name + ", " + pid + " FROM " + kKernelTable +
                          " ORDER BY start");
    while (st.step()) {
      if (options_.progress && ++done % 65536 == 0) options_.progress("kernel row", std::min(done, total), total);
      if (st.is_null(0) || st.is_null(1) || st.is_null(2) || st.is_null(3) || st.is_null(4)) {
        profile_.skip("kernel row with NULL start, end, deviceId, streamId or " + name);
        continue;
      }
      if (!integers(st, {0, 1, 2, 3})) {
        profile_.skip("kernel row with a start, end, deviceId or streamId that is not an integer");
        continue;
      }
      const KernelName* k = names_->get(st.int64(4));
      if (k == nullptr) {
        profile_.skip("kernel " + name + " id not in StringIds");
        continue;
      }
      const std::int64_t start = st.int64(0), end = st.int64(1), stream = st.int64(3);
      if (const char* why = bad_kernel_row(start, end, st.int64(2))) {
        profile_.skip(why);
        continue;
      }
      const int device = static_cast<int>(st.int64(2));
      ++profile_.kernel_rows;
      builder_.timeline(device, start, end, k->comm);
      if (k->comm && !is_p2p_kernel(k->name)) builder_.comm_mark(device, k->name, start, end);
      if (!options_.by_nvtx) builder_.row(device, stream, k->name, end - start, k->comm, false);
      if (!st.is_null(5)) process_devices_.launched(os_pid(st.int64(5)), device);
      if (trace_ && options_.activities.kernel) {
        gpu_track(device, stream);
        trace_->complete("kernel", k->name, kGpuPidBase + device, stream, start, end - start,
                         {{"device", device}, {"stream", stream}});
      }
    }
    if (options_.progress) options_.progress("kernel row", done, std::max(done, total));
  }

  // The device a range's collective ran on: the one with the most kernels inside it, else its process's.
  int range_device(const ClosedRange& c) const {
    if (c.devices.empty()) return process_devices_.device_of(os_pid(c.range.thread));
    return std::max_element(c.devices.begin(), c.devices.end(),
                            [](const RangeOnDevice& a, const RangeOnDevice& b) { return a.kernels < b.kernels; })
        ->device;
  }

  // An NCCL API range (trace/nccl_nvtx_payload.h) with a size in its payload: a collective of that
  // many bytes; its element count where a kernel inside it names the datatype and the size is the
  // whole tensor's (not all_gather's or reduce_scatter's per-rank part).
  void nccl_range(const ClosedRange& c, const NcclPayloadRange& p) {
    ++profile_.nccl_ranges;
    if (!p.bytes) return;
    ++profile_.nccl_payload_sizes;
    CollectiveRow row;
    row.op = p.op;
    row.nccl_bytes = *p.bytes;
    if (c.nccl_dtype && c.nccl_dtype->size_bytes > 0 && !p.per_rank_part && *p.bytes % c.nccl_dtype->size_bytes == 0) {
      row.elements = *p.bytes / c.nccl_dtype->size_bytes;
      row.dtype = c.nccl_dtype->name, row.element_bytes = c.nccl_dtype->size_bytes;
    }
    row.source = "nccl-nvtx";
    builder_.collective(range_device(c), row);
  }

  void on_range_closed(const ClosedRange& c) {
    if (auto nccl = parse_nccl_nvtx_range(c.range.text, c.range.payload)) nccl_range(c, *nccl);
    if (auto coll = parse_collective_text(c.range.text)) {
      ++profile_.collective_texts;
      if (coll->sizes_present && coll->elements < 0) {
        ++profile_.unparsed_texts;
      } else {
        const int device = range_device(c);
        CollectiveRow row;
        row.op = coll->op;
        row.elements = coll->elements;
        if (c.nccl_dtype) row.dtype = c.nccl_dtype->name, row.element_bytes = c.nccl_dtype->size_bytes;
        row.source = "nvtx";
        builder_.collective(device, row);
      }
    }
    if (trace_ && options_.activities.nvtx_kernel && options_.nvtx_selected(c.range.text)) {
      for (const auto& d : c.devices) {
        gpu_track(d.device, -1);
        const auto tid = kNvtxOnGpuTidBase + os_tid(c.range.thread);
        trace_->thread(kGpuPidBase + d.device, tid, "NVTX of thread " + std::to_string(os_tid(c.range.thread)), tid);
        trace_->complete("nvtx-kernel", c.range.text, kGpuPidBase + d.device, tid, d.first_start_ns,
                         d.last_end_ns - d.first_start_ns,
                         {{"depth", c.depth}, {"kernels", d.kernels}, {"range_start_us", c.range.start_ns / 1000.0}});
      }
    }
  }

  std::string nvtx_text_expr() const {
    if (schema_.nvtx_text && schema_.nvtx_text_id) return "COALESCE(n.text, s.value)";
    return schema_.nvtx_text ? "n.text" : "s.value";
  }
  std::string nvtx_join() const { return schema_.nvtx_text_id ? " LEFT JOIN StringIds AS s ON s.id = n.textId" : ""; }

  // Pass 2: kernel launches (by thread and launch time) merged with push/pop ranges (by thread, start).
  void pass_nvtx() {
    if (!schema_.nvtx) {
      if (options_.by_nvtx) replay_kernels_unattributed();
      return;
    }
    auto ranges = db_.prepare(
        "SELECT n.globalTid, n.start, n.\"end\", " + nvtx_text_expr() + ", " +
        (schema_.nvtx_json ? "n.jsonText" : "NULL") + " FROM " + kNvtxTable + " AS n" + nvtx_join() +
        " WHERE n.eventType = " + std::to_string(schema_.push_pop_type) +
        " AND n.\"end\" IS NOT NULL AND n.globalTid IS NOT NULL ORDER BY n.globalTid, n.start, n.\"end\" DESC");
    std::optional<SqliteStatement> launches;
    if (schema_.runtime) {
      const std::string same_process =
          schema_.kernel_global_pid ? " AND ((r.globalTid >> 24) & 16777215) = ((k.globalPid >> 24) & 16777215)" : "";
      launches.emplace(db_.prepare("SELECT r.globalTid, r.start, k.start, k.\"end\", k.deviceId, k.streamId, k." +
                                   schema_.kernel_name_column + " FROM " + kKernelTable + " AS k LEFT JOIN " +
                                   kRuntimeTable + " AS r ON r.correlationId = k.correlationId" + same_process +
                                   " ORDER BY r.globalTid, r.start"));
      if (!schema_.kernel_global_pid) {
        profile_.notes.emplace_back("kernels joined to CUDA calls on correlationId alone (no globalPid column)");
      }
    } else if (options_.by_nvtx) {
      replay_kernels_unattributed();
    }
    NvtxSweep sweep([this](const ClosedRange& c) { on_range_closed(c); });
    bool have_range = step_range(ranges), have_launch = launches && launches->step();
    while (have_range || have_launch) {
      if (have_launch && launches->is_null(0)) {  // a kernel with no CUDA call found: its own name
        if (options_.by_nvtx) launch_row(*launches, nullptr);
        have_launch = launches->step();
        continue;
      }
      const bool range_first =
          have_range && (!have_launch || std::make_pair(range_.thread, range_.start_ns) <=
                                             std::make_pair(launches->int64(0), launches->int64(1)));
      if (range_first) {
        ++profile_.nvtx_ranges;
        sweep.range(std::move(range_));
        have_range = step_range(ranges);
        continue;
      }
      if (const KernelName* k = launch_name(*launches)) {
        SweepKernel sk{static_cast<int>(launches->int64(4)),
                       launches->int64(5),
                       launches->int64(2),
                       launches->int64(3),
                       k->comm,
                       k->dtype};
        const SweepRange* inner = sweep.launch(launches->int64(0), launches->int64(1), sk);
        if (options_.by_nvtx) launch_row(*launches, inner);
      }
      have_launch = launches->step();
    }
    sweep.finish();
  }

  // Next usable push/pop range into range_ (rows whose text cannot be read are skipped and counted).
  bool step_range(SqliteStatement& st) {
    while (st.step()) {
      if (st.is_null(3)) {
        profile_.skip("NVTX range text id not in StringIds");
        continue;
      }
      if (!integers(st, {0, 1, 2})) {
        profile_.skip("NVTX range with a thread, start or end that is not an integer");
        continue;
      }
      if (st.int64(2) < st.int64(1) || st.int64(1) < 0) {
        profile_.skip("NVTX range with end before start, or a negative start");
        continue;
      }
      range_ = SweepRange{st.int64(0), st.int64(1), st.int64(2), utf8_replaced(st.text(3)),
                          st.is_null(4) ? std::string() : utf8_replaced(st.text(4))};
      return true;
    }
    return false;
  }

  const KernelName* launch_name(SqliteStatement& st) {
    if (st.is_null(2) || st.is_null(3) || st.is_null(4) || st.is_null(5) || st.is_null(6)) return nullptr;
    if (!integers(st, {2, 3, 4, 5})) return nullptr;
    if (bad_kernel_row(st.int64(2), st.int64(3), st.int64(4))) return nullptr;
    return names_->get(st.int64(6));  // rows pass 1 skipped are skipped here too, not counted twice
  }

  void launch_row(SqliteStatement& st, const SweepRange* inner) {
    const KernelName* k = launch_name(st);
    if (k == nullptr) return;
    builder_.row(static_cast<int>(st.int64(4)), st.int64(5), inner ? inner->text : k->name, st.int64(3) - st.int64(2),
                 k->comm, inner != nullptr);
  }

  // --by nvtx on an export without the tables to attribute: every kernel keeps its own name.
  void replay_kernels_unattributed() {
    auto st = db_.prepare("SELECT NULL, NULL, start, \"end\", deviceId, streamId, " + schema_.kernel_name_column +
                          " FROM " + kKernelTable);
    while (st.step()) launch_row(st, nullptr);
  }

  // The wall clock of the session's time 0 (C1: utcEpochNs anchors the timeline), for aligning ranks.
  void read_session_start() {
    const auto cols = db_.columns("TARGET_INFO_SESSION_START_TIME");
    if (std::find(cols.begin(), cols.end(), "utcEpochNs") == cols.end()) return;
    auto st = db_.prepare("SELECT utcEpochNs FROM TARGET_INFO_SESSION_START_TIME LIMIT 1");
    if (st.step() && !st.is_null(0) && st.int64(0) >= 0) profile_.epoch_ns = st.int64(0);
  }

  // memcpy and memset activity (C1: CUPTI_ACTIVITY_KIND_MEMCPY / MEMSET with start, end, deviceId,
  // bytes), counted per device; then kernels and memory operations merged in start order for the
  // device's active time. Both tables are created lazily: absent means none ran.
  void pass_memory() {
    std::string memory;
    for (const auto& [table, memset] : {std::pair<const char*, int>{"CUPTI_ACTIVITY_KIND_MEMCPY", 0},
                                        std::pair<const char*, int>{"CUPTI_ACTIVITY_KIND_MEMSET", 1}}) {
      const auto cols = db_.columns(table);
      const auto has = [&cols](const char* c) { return std::find(cols.begin(), cols.end(), c) != cols.end(); };
      if (!has("start") || !has("end") || !has("deviceId") || !has("bytes")) continue;
      memory += std::string(memory.empty() ? "" : " UNION ALL ") + "SELECT start, \"end\", deviceId, bytes, " +
                std::to_string(memset) + " AS kind FROM " + table;
    }
    if (memory.empty()) return;
    auto st = db_.prepare(memory + " ORDER BY start");
    while (st.step()) {
      if (!integers(st, {0, 1, 2}) || bad_kernel_row(st.int64(0), st.int64(1), st.int64(2))) {
        profile_.skip("memcpy/memset row with a NULL or unusable start, end or deviceId");
        continue;
      }
      builder_.memory(static_cast<int>(st.int64(2)), st.is_null(3) ? 0 : st.int64(3), st.int64(4) == 1);
    }
    auto all = db_.prepare("SELECT start, \"end\", deviceId FROM (SELECT start, \"end\", deviceId FROM " +
                           std::string(kKernelTable) + " UNION ALL SELECT start, \"end\", deviceId FROM (" + memory +
                           ")) ORDER BY start");
    while (all.step()) {
      if (!integers(all, {0, 1, 2}) || bad_kernel_row(all.int64(0), all.int64(1), all.int64(2)))
        continue;  // counted above
      builder_.active(static_cast<int>(all.int64(2)), all.int64(0), all.int64(1));
    }
  }

  // NVTX ranges and marks on their CPU threads (Chrome trace only).
  void pass_nvtx_events() {
    if (!trace_ || !options_.activities.nvtx || !schema_.nvtx) return;
    auto st = db_.prepare("SELECT n.globalTid, n.start, n.\"end\", n.eventType, " + nvtx_text_expr() + " FROM " +
                          kNvtxTable + " AS n" + nvtx_join() + " WHERE n.eventType IN (" +
                          std::to_string(schema_.push_pop_type) + ", " + std::to_string(schema_.start_end_type) + ", " +
                          std::to_string(schema_.mark_type) + ") AND n.globalTid IS NOT NULL AND n.start IS NOT NULL");
    while (st.step()) {
      const std::string text = st.is_null(4) ? std::string() : std::string(st.text(4));
      if (!options_.nvtx_selected(text)) continue;
      const std::int64_t gtid = st.int64(0), type = st.int64(3);
      host_track(gtid);
      if (type == schema_.mark_type || st.is_null(2)) {
        trace_->instant("nvtx", text, os_pid(gtid), os_tid(gtid), st.int64(1));
      } else {
        trace_->complete("nvtx", text, os_pid(gtid), os_tid(gtid), st.int64(1), st.int64(2) - st.int64(1),
                         {{"type", type == schema_.push_pop_type ? "push/pop" : "start/end"}});
      }
    }
  }

  // CUDA runtime calls on their CPU threads (Chrome trace only).
  void pass_cuda_api() {
    if (!trace_ || !options_.activities.cuda_api || !schema_.runtime) return;
    const std::string name = schema_.runtime_name ? "s.value" : "NULL";
    const std::string join = schema_.runtime_name ? " LEFT JOIN StringIds AS s ON s.id = r.nameId" : "";
    auto st = db_.prepare("SELECT r.globalTid, r.start, r.\"end\", " + name + ", r.correlationId FROM " +
                          kRuntimeTable + " AS r" + join +
                          " WHERE r.globalTid IS NOT NULL AND r.start IS NOT NULL AND r.\"end\" IS NOT NULL");
    while (st.step()) {
      const std::int64_t gtid = st.int64(0);
      host_track(gtid);
      nlohmann::json args = nullptr;
      if (!st.is_null(4)) args = {{"correlation", st.int64(4)}};
      trace_->complete("cuda-api", st.is_null(3) ? std::string_view("CUDA call") : st.text(3), os_pid(gtid),
                       os_tid(gtid), st.int64(1), st.int64(2) - st.int64(1), args);
    }
  }

  SqliteDb db_;
  TraceOptions options_;
  NsysSchema schema_;
  TraceProfile profile_;
  ProfileBuilder builder_;
  std::optional<NameCache> names_;
  std::unique_ptr<ChromeTraceWriter> trace_;
  std::map<int, std::string> gpu_names_;
  ProcessDevices process_devices_;
  SweepRange range_;
};

}  // namespace

bool nsys_reader_available() { return true; }

TraceProfile read_nsys_sqlite(const std::string& path, const TraceOptions& options) {
  NsysReader reader(path, options);
  return reader.read();
}

}  // namespace pipebench

#else  // !PB_HAVE_SQLITE

namespace pipebench {

bool nsys_reader_available() { return false; }

TraceProfile read_nsys_sqlite(const std::string& path, const TraceOptions&) {
  throw UsageError(path +
                   ": an SQLite file, but this pipebench was built without SQLite (no sqlite3.h at build time; "
                   "install libsqlite3-dev and rebuild)");
}

}  // namespace pipebench

#endif
