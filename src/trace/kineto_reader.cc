// SPDX-License-Identifier: Apache-2.0
// Kineto trace reader.
#include "trace/kineto_reader.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>
#include <vector>

#include "core/error.h"
#include "trace/collective_text.h"
#include "trace/gzip_stream.h"
#include "trace/json_event_stream.h"
#include "trace/kernel_names.h"
#include "trace/kineto_fields.h"
#include "trace/nvtx_sweep.h"
#include "trace/process_devices.h"
#include "trace/profile_builder.h"

namespace pipebench {
namespace {

using json = nlohmann::json;

// A string field by reference, or an empty one when it is absent or not a string (json::value would
// throw on a number): no copy per event (readers see millions).
const std::string& ref_of(const json& e, const char* key) {
  static const std::string kEmpty;
  auto it = e.find(key);
  return it != e.end() && it->is_string() ? it->get_ref<const std::string&>() : kEmpty;
}

struct Kernel {
  int device = 0;
  std::int64_t stream = 0, start_ns = 0, end_ns = 0, correlation = -1;
  std::size_t name = 0;  // into names
  bool comm = false;
};

// A gpu_memcpy or gpu_memset event (counted apart from kernels: the job view's memory time).
struct MemoryOp {
  int device = 0;
  std::int64_t start_ns = 0, end_ns = 0, bytes = 0;
  bool memset = false;
};

struct Launch {
  std::int64_t thread = 0, time_ns = 0, pid = 0;
};

struct CommOp {
  std::int64_t pid = -1;
  int device = -1;  // known for kernel-borne metadata
  CollectiveRow row;
};

class KinetoReader {
 public:
  KinetoReader(const std::string& path, const TraceOptions& o) : path_(path), options_(o) {}

  TraceProfile read() {
    const auto in = open_trace_input(path_);
    std::error_code ec;
    const auto size_mib = static_cast<std::int64_t>(std::filesystem::file_size(path_, ec) >> 20);
    std::int64_t events = 0;
    const auto r = stream_json_events(*in, [&](const json& e) {
      event(e);
      // Every 16384 events, the MiB read so far (tellg of a file stream reads the buffer position; a
      // decompressing stream has none and reports nothing until the end).
      if (options_.progress && ++events % 16384 == 0) {
        const std::streamoff at = in->tellg();
        if (at >= 0) options_.progress("MiB", std::min<std::int64_t>(at >> 20, size_mib), size_mib);
      }
    });
    if (options_.progress) options_.progress("MiB", size_mib, size_mib);
    if (!r.duplicate_key.empty()) throw UsageError(path_ + ": " + r.duplicate_key);
    if (r.top == JsonStreamResult::Top::kOther || (!r.error.empty() && r.events == 0 && !r.saw_events)) {
      throw UsageError(path_ + ": not JSON (" + (r.error.empty() ? "a single value" : r.error) + ")");
    }
    if (!r.saw_events) throw UsageError(path_ + ": JSON but not a trace (no \"traceEvents\" array)");
    TraceProfile p;
    p.path = path_;
    p.source = "kineto-json";
    p.by = options_.by_nvtx ? "nvtx" : "kernel";
    if (!r.error.empty()) {
      p.damage = "JSON ends or breaks at byte " + std::to_string(r.error_offset) + " after " +
                 std::to_string(r.events) + " events: " + r.error;
    }
    if (r.non_objects > 0) p.skip("traceEvents element that is not an object", r.non_objects);
    for (const auto& [reason, n] : skipped_) p.skip(reason, n);
    read_meta(r.meta, p);
    build(p);
    return p;
  }

 private:
  std::int64_t thread_key(const json& e) {
    // Integer pid/tid (what Kineto writes): no text key.
    auto pid = e.find("pid"), tid = e.find("tid");
    if (pid != e.end() && tid != e.end() && pid->is_number_integer() && tid->is_number_integer()) {
      const auto k = std::make_pair(pid->get<std::int64_t>(), tid->get<std::int64_t>());
      return int_threads_.try_emplace(k, static_cast<std::int64_t>(threads_.size() + int_threads_.size()))
          .first->second;
    }
    const auto key = (e.contains("pid") ? e["pid"].dump() : "") + "/" + (e.contains("tid") ? e["tid"].dump() : "");
    return threads_.try_emplace(key, static_cast<std::int64_t>(threads_.size() + int_threads_.size())).first->second;
  }

  // ok, or the event is counted as skipped for `why`.
  bool kept(bool ok, const char* why) {
    if (!ok) ++skipped_[why];
    return ok;
  }

  std::size_t intern(const std::string& name) {
    const auto known = name_ids_.find(name);
    if (known != name_ids_.end()) return known->second;
    if (names_.size() >= kMaxTraceKernelNames) {
      throw UsageError(path_ + ": more than " + std::to_string(kMaxTraceKernelNames) +
                       " distinct kernel names (a training step's profile has a few thousand)");
    }
    name_ids_.emplace(name, names_.size());
    names_.push_back(name);
    return names_.size() - 1;
  }

  static CollectiveRow collective_of(const json& args) {
    CollectiveRow c;
    c.op = normalize_collective(ref_of(args, "Collective name"));
    const auto in = kineto_int(args, "In msg nelems"), out = kineto_int(args, "Out msg nelems");
    // PARAM's profiler_trace_analysis: the message is the larger of input and output (C2); that is
    // also what the plan lists (all_gather: the gathered output, reduce_scatter: the input).
    if (in || out) c.elements = std::max(in.value_or(0), out.value_or(0));
    if (auto it = args.find("dtype"); it != args.end() && it->is_string()) {
      if (auto t = dtype_from_torch(it->get<std::string>())) {
        c.dtype = t->name;
        c.element_bytes = t->size_bytes;
      } else {
        c.dtype = it->get<std::string>();
      }
    }
    if (auto g = kineto_int(args, "Group size")) c.group_size = static_cast<int>(*g);
    return c;
  }

  void event(const json& e) {
    if (ref_of(e, "ph") != "X") return;
    const std::string& cat = ref_of(e, "cat");
    const auto ts = kineto_time(e, "ts"), dur = kineto_time(e, "dur");
    static const json kNoArgs = json::object();
    auto args_it = e.find("args");
    const json& args = args_it != e.end() && args_it->is_object() ? *args_it : kNoArgs;
    if (cat == "kernel") {
      std::optional<std::int64_t> device = kineto_int(args, "device");
      if (!device) device = kineto_int(e, "pid");
      std::optional<std::int64_t> stream = kineto_int(args, "stream");
      if (!stream) stream = kineto_int(e, "tid");
      if (!kept(ts.present && dur.present && device && stream && e.contains("name") && e["name"].is_string(),
                "kernel event without ts, dur, name, device or stream") ||
          !kept(ts.usable && dur.usable, "kernel event with a negative or out-of-range ts or dur") ||
          !kept(*device >= 0 && *device <= kMaxTraceDevice, "kernel event with a device id out of range")) {
        return;
      }
      const auto& name = e["name"].get_ref<const std::string&>();
      const bool tagged = args.contains("Collective name");
      kernels_.push_back(Kernel{static_cast<int>(*device), *stream, ts.ns, ts.ns + dur.ns,
                                kineto_int(args, "correlation").value_or(-1), intern(name),
                                is_nccl_kernel(name) || tagged});
      if (tagged) kernel_comms_.push_back(CommOp{-1, kernels_.back().device, collective_of(args)});
    } else if (cat == "gpu_memcpy" || cat == "gpu_memset") {
      memory_event(e, args, ts, dur, cat == "gpu_memset");
    } else if (cat == "cpu_op" && ref_of(e, "name") == "record_param_comms") {
      if (!kept(args.contains("Collective name"), "record_param_comms without \"Collective name\"")) return;
      CommOp op{kineto_int(e, "pid").value_or(-1), -1, collective_of(args)};
      op.row.source = "record_param_comms";
      cpu_comms_.push_back(op);
    } else if (cat == "cuda_runtime" || cat == "cuda_driver") {
      const auto corr = kineto_int(args, "correlation");
      if (corr && ts.usable) launches_[*corr] = Launch{thread_key(e), ts.ns, kineto_int(e, "pid").value_or(-1)};
    } else if (cat == "user_annotation") {
      if (!kept(ts.present && dur.present && e.contains("name") && e["name"].is_string(),
                "user_annotation without ts, dur or name") ||
          !kept(ts.usable && dur.usable, "user_annotation with a negative or out-of-range ts or dur")) {
        return;
      }
      const auto& name = e["name"].get_ref<const std::string&>();
      if (name.rfind("ProfilerStep#", 0) == 0) ++profiler_steps_;
      ranges_.push_back(SweepRange{thread_key(e), ts.ns, ts.ns + dur.ns, name});
    }
  }

  void memory_event(const json& e, const json& args, const TimeField& ts, const TimeField& dur, bool memset) {
    std::optional<std::int64_t> device = kineto_int(args, "device");
    if (!device) device = kineto_int(e, "pid");
    if (!kept(ts.usable && dur.usable && device && *device >= 0 && *device <= kMaxTraceDevice,
              "memcpy/memset event without a usable ts, dur or device")) {
      return;
    }
    const auto bytes = kineto_int(args, "bytes");
    memory_.push_back(
        MemoryOp{static_cast<int>(*device), ts.ns, ts.ns + dur.ns, bytes && *bytes > 0 ? *bytes : 0, memset});
  }

  void read_meta(const json& meta, TraceProfile& p) {
    if (auto it = meta.find("schemaVersion"); it != meta.end()) p.format_version = it->dump();
    // Kineto writes ts relative to baseTimeNanoseconds, the wall clock of the trace's start (C2).
    if (auto it = meta.find("baseTimeNanoseconds"); it != meta.end()) {
      const auto base = kineto_int(*it);
      if (base && *base >= 0 && static_cast<double>(*base) <= kMaxTraceTimeNs) {
        p.epoch_ns = *base;
      } else {
        p.skip("baseTimeNanoseconds that is not a time (ignored)");
      }
    }
    if (auto it = meta.find("distributedInfo"); it != meta.end() && it->is_object()) read_rank(*it, p);
    if (auto it = meta.find("deviceProperties"); it != meta.end() && it->is_array()) {
      for (const auto& d : *it) {
        if (d.is_object() && d.contains("id") && d.contains("name") && d["name"].is_string()) {
          if (auto id = kineto_int(d["id"])) gpu_names_[static_cast<int>(*id)] = d["name"].get<std::string>();
        }
      }
    }
  }

  // distributedInfo's rank and world size, kept only when 0 <= rank < world_size (either may be absent).
  static void read_rank(const json& info, TraceProfile& p) {
    const auto r = kineto_int(info, "rank"), w = kineto_int(info, "world_size");
    constexpr std::int64_t kMaxWorld = 1 << 24;
    const bool world_ok = !w || (*w >= 1 && *w <= kMaxWorld);
    const bool rank_ok = !r || (*r >= 0 && *r < (w ? *w : kMaxWorld));
    if (world_ok && rank_ok) {
      if (r) p.rank = static_cast<int>(*r);
      if (w) p.world_size = static_cast<int>(*w);
      return;
    }
    p.skip("distributedInfo with rank " + (r ? std::to_string(*r) : std::string("?")) + " of world size " +
           (w ? std::to_string(*w) : std::string("?")) + " (not a rank of that world; ignored)");
  }

  // A CPU-side collective goes to its process's device; in a one-device trace, to that device.
  int device_of_process(std::int64_t pid) const {
    const int device = process_devices_.device_of(pid);
    if (device >= 0) return device;
    return devices_seen_.size() == 1 ? *devices_seen_.begin() : -1;
  }

  void build(TraceProfile& p) {
    p.profiler_steps = profiler_steps_;
    p.nvtx_ranges = static_cast<std::int64_t>(ranges_.size());
    p.kernel_rows = static_cast<std::int64_t>(kernels_.size());
    ProfileBuilder b;
    std::stable_sort(kernels_.begin(), kernels_.end(),
                     [](const Kernel& a, const Kernel& c) { return a.start_ns < c.start_ns; });
    std::stable_sort(memory_.begin(), memory_.end(),
                     [](const MemoryOp& a, const MemoryOp& c) { return a.start_ns < c.start_ns; });
    std::size_t mi = 0;
    for (const Kernel& k : kernels_) {
      for (; mi < memory_.size() && memory_[mi].start_ns <= k.start_ns; ++mi) add_memory(b, memory_[mi]);
      devices_seen_.insert(k.device);
      b.timeline(k.device, k.start_ns, k.end_ns, k.comm);
      b.active(k.device, k.start_ns, k.end_ns);
      if (k.comm && !is_p2p_kernel(names_[k.name])) b.comm_mark(k.device, names_[k.name], k.start_ns, k.end_ns);
      if (!options_.by_nvtx) b.row(k.device, k.stream, names_[k.name], k.end_ns - k.start_ns, k.comm, false);
      auto l = launches_.find(k.correlation);
      if (l != launches_.end()) process_devices_.launched(l->second.pid, k.device);
    }
    for (; mi < memory_.size(); ++mi) add_memory(b, memory_[mi]);
    if (options_.by_nvtx) attribute(b);

    // One record_param_comms CPU op per c10d call; without CPU activity, the metadata Kineto copied
    // onto the NCCL kernels (one kernel per call as well).
    const bool from_cpu = !cpu_comms_.empty();
    for (const CommOp& op : from_cpu ? cpu_comms_ : kernel_comms_) {
      CollectiveRow row = op.row;
      if (!from_cpu) row.source = "kernel_args";
      b.collective(from_cpu ? device_of_process(op.pid) : op.device, row);
    }
    for (const auto& [device, name] : gpu_names_) b.device_name(device, name);
    p.devices = b.finish();
  }

  static void add_memory(ProfileBuilder& b, const MemoryOp& m) {
    b.memory(m.device, m.bytes, m.memset);
    b.active(m.device, m.start_ns, m.end_ns);
  }

  // --by nvtx: kernel -> its launch call (correlation) -> innermost user_annotation of that thread.
  void attribute(ProfileBuilder& b) {
    struct Item {
      std::int64_t thread, time_ns;
      const Kernel* kernel;
    };
    std::vector<Item> items;
    for (const Kernel& k : kernels_) {
      auto l = launches_.find(k.correlation);
      if (l == launches_.end()) {
        b.row(k.device, k.stream, names_[k.name], k.end_ns - k.start_ns, k.comm, false);
      } else {
        items.push_back({l->second.thread, l->second.time_ns, &k});
      }
    }
    auto key = [](std::int64_t thread, std::int64_t t) { return std::make_pair(thread, t); };
    std::sort(items.begin(), items.end(),
              [&](const Item& a, const Item& c) { return key(a.thread, a.time_ns) < key(c.thread, c.time_ns); });
    std::stable_sort(ranges_.begin(), ranges_.end(), [&](const SweepRange& a, const SweepRange& c) {
      if (key(a.thread, a.start_ns) != key(c.thread, c.start_ns))
        return key(a.thread, a.start_ns) < key(c.thread, c.start_ns);
      return a.end_ns > c.end_ns;  // the enclosing range first when two start together
    });
    NvtxSweep sweep([](const ClosedRange&) {});
    std::size_t ri = 0;
    for (const Item& it : items) {
      while (ri < ranges_.size() && key(ranges_[ri].thread, ranges_[ri].start_ns) <= key(it.thread, it.time_ns)) {
        sweep.range(ranges_[ri++]);
      }
      const Kernel& k = *it.kernel;
      const SweepRange* inner =
          sweep.launch(it.thread, it.time_ns, SweepKernel{k.device, k.stream, k.start_ns, k.end_ns, k.comm, {}});
      b.row(k.device, k.stream, inner ? inner->text : names_[k.name], k.end_ns - k.start_ns, k.comm, inner != nullptr);
    }
    sweep.finish();
  }

  std::string path_;
  TraceOptions options_;
  std::vector<Kernel> kernels_;
  std::vector<MemoryOp> memory_;
  std::vector<std::string> names_;
  std::unordered_map<std::string, std::size_t> name_ids_;
  std::unordered_map<std::int64_t, Launch> launches_;
  std::map<std::string, std::int64_t> threads_;
  std::map<std::pair<std::int64_t, std::int64_t>, std::int64_t> int_threads_;
  std::vector<SweepRange> ranges_;
  std::vector<CommOp> cpu_comms_, kernel_comms_;
  std::map<std::string, std::int64_t> skipped_;
  std::map<int, std::string> gpu_names_;
  ProcessDevices process_devices_;
  std::set<int> devices_seen_;
  int profiler_steps_ = 0;
};

}  // namespace

TraceProfile read_kineto_json(const std::string& path, const TraceOptions& options) {
  KinetoReader reader(path, options);
  return reader.read();
}

}  // namespace pipebench
