// SPDX-License-Identifier: Apache-2.0
// One rank's timeline from a Kineto trace.
#include "trace/rank_timeline.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <exception>
#include <map>
#include <nlohmann/json.hpp>
#include <thread>
#include <utility>

#include "core/error.h"
#include "core/text.h"
#include "trace/collective_text.h"
#include "trace/each_file.h"
#include "trace/file_format.h"
#include "trace/gzip_stream.h"
#include "trace/json_event_stream.h"
#include "trace/kernel_names.h"
#include "trace/kineto_fields.h"

namespace pipebench {
namespace {

using json = nlohmann::json;

const std::string& string_field(const json& e, const char* key) {
  static const std::string kEmpty;
  const auto it = e.find(key);
  return it != e.end() && it->is_string() ? it->get_ref<const std::string&>() : kEmpty;
}

// The c10d call a CPU operator stands for, or "" for compute. record_param_comms carries the call's name in its
// args; c10d's dispatcher ops (c10d::send, c10d::recv_, c10d::allreduce_) and the backends' operators
// (gloo:..., nccl:...) name it themselves.
std::string comm_of(const std::string& name, const json& e) {
  if (name == "record_param_comms") {
    const auto args = e.find("args");
    const std::string& c = args != e.end() && args->is_object() ? string_field(*args, "Collective name") : name;
    return c.empty() ? "unknown" : normalize_collective(c);
  }
  for (const char* prefix : {"c10d::", "gloo:", "nccl:"}) {
    if (starts_with(name, prefix)) {
      std::string call = name.substr(std::char_traits<char>::length(prefix));
      while (!call.empty() && call.back() == '_') call.pop_back();
      return call.empty() ? "unknown" : normalize_collective(call);
    }
  }
  return {};
}

bool is_p2p_op(const std::string& op) { return op == "send" || op == "recv" || op == "sendrecv"; }

// 24 bytes: a rank's trace holds a million of them while it is read.
struct CpuOp {
  std::int64_t start_ns = 0, end_ns = 0;
  std::int32_t tid = 0;
  std::uint16_t comm = 0;  // 0: compute; else 1 + the index of the call's name in calls_
};

struct Kernel {
  std::int64_t device = 0, start_ns = 0, end_ns = 0;
  bool nccl = false;
  std::string op;
};

class TimelineReader {
 public:
  explicit TimelineReader(const std::string& path) : path_(path) {}

  RankTimeline read() {
    const auto in = open_trace_input(path_);
    const auto r = stream_json_events(*in, [this](const json& e) { event(e); });
    if (!r.duplicate_key.empty()) throw UsageError(path_ + ": " + r.duplicate_key);
    if (r.top == JsonStreamResult::Top::kOther || (!r.error.empty() && r.events == 0 && !r.saw_events))
      throw UsageError(path_ + ": not JSON (" + (r.error.empty() ? "a single value" : r.error) + ")");
    if (!r.saw_events) throw UsageError(path_ + ": JSON but not a trace (no \"traceEvents\" array)");
    if (!r.error.empty()) {
      throw UsageError(path_ + ": the trace breaks at byte " + std::to_string(r.error_offset) + " (" + r.error +
                       "): a calibration needs whole iterations");
    }
    RankTimeline t;
    t.path = path_;
    meta(r.meta, t);
    if (!kernels_.empty()) {
      gpu(t);
    } else if (!ops_.empty()) {
      cpu(t);
    } else {
      throw UsageError(path_ +
                       ": no kernels and no CPU operators (a PyTorch profiler trace of the job's ranks "
                       "records them with activities CPU and CUDA)");
    }
    finish(t);
    return t;
  }

 private:
  void event(const json& e) {
    const std::string& ph = string_field(e, "ph");
    if (ph != "X") return;
    const TimeField ts = kineto_time(e, "ts"), dur = kineto_time(e, "dur");
    if (!ts.usable || !dur.usable) return;
    const TimeSpan at{ts.ns, ts.ns + dur.ns};
    const std::string& cat = string_field(e, "cat");
    const std::string& name = string_field(e, "name");
    const std::int64_t tid = kineto_int(e, "tid").value_or(-1);
    if (cat == "kernel") {
      const auto args = e.find("args");
      Kernel k{kineto_int(e, "pid").value_or(0), at.start_ns, at.end_ns, is_nccl_kernel(name), {}};
      if (k.nccl) {
        const std::string c = args != e.end() && args->is_object() ? string_field(*args, "Collective name") : "";
        k.op = c.empty() ? nccl_kernel_call(name) : normalize_collective(c);
      }
      kernels_.push_back(std::move(k));
    } else if (cat == "cpu_op") {
      ops_.push_back({at.start_ns, at.end_ns, thread_of(tid), call_id(comm_of(name, e))});
    } else if (cat == "user_annotation") {
      if (starts_with(name, "ProfilerStep#")) {
        steps_[thread_of(tid)].push_back(at);
      } else if (auto m = parse_pass_marker(name)) {
        m->at = at;
        markers_.push_back(*m);
      } else if (starts_with(name, "Optimizer.")) {
        optimizer_.push_back(at);
      }
      // gloo:send / gloo:recv ranges are asynchronous: they open at the post and close when the work is waited
      // for, over the passes computed meanwhile; the c10d operator that posts the call is the call.
    }
  }

  // Threads and call names numbered as they are met (a trace has a few of each).
  std::int32_t thread_of(std::int64_t tid) {
    return threads_.try_emplace(tid, static_cast<std::int32_t>(threads_.size())).first->second;
  }
  std::uint16_t call_id(const std::string& call) {
    if (call.empty()) return 0;
    const auto it = std::find(calls_.begin(), calls_.end(), call);
    if (it != calls_.end()) return static_cast<std::uint16_t>(it - calls_.begin() + 1);
    if (calls_.size() >= 0xfffe) return call_id("unknown");
    calls_.push_back(call);
    return static_cast<std::uint16_t>(calls_.size());
  }

  void meta(const json& m, RankTimeline& t) {
    if (const auto base = kineto_int(m, "baseTimeNanoseconds"); base && *base > 0) {
      base_ns_ = *base;
      t.aligned = true;
    }
    if (const auto d = m.find("distributedInfo"); d != m.end() && d->is_object()) {
      if (const auto r = kineto_int(*d, "rank"); r && *r >= 0 && *r < (1 << 24)) t.rank = static_cast<int>(*r);
      if (const auto w = kineto_int(*d, "world_size"); w && *w > 0 && *w <= (1 << 24))
        t.world_size = static_cast<int>(*w);
    }
  }

  // The device with the most kernels is the rank's.
  void gpu(RankTimeline& t) {
    std::map<std::int64_t, std::int64_t> per_device;
    for (const auto& k : kernels_) ++per_device[k.device];
    const auto device = std::max_element(per_device.begin(), per_device.end(), [](const auto& a, const auto& b) {
                          return a.second < b.second;
                        })->first;
    t.gpu = true;
    t.what = "kernels of GPU " + std::to_string(device);
    for (const auto& k : kernels_) {
      if (k.device != device) continue;
      if (k.nccl) {
        t.comms.push_back({{k.start_ns, k.end_ns}, is_p2p_op(k.op), k.op});
      } else {
        t.compute.push_back({k.start_ns, k.end_ns});
      }
    }
    std::vector<TimeSpan> all;
    for (const auto& [tid, s] : steps_) all.insert(all.end(), s.begin(), s.end());
    t.steps = std::move(all);
  }

  // The thread with the ProfilerStep ranges (the most of them), else the one with the most operators.
  std::int32_t main_thread() const {
    if (!steps_.empty()) {
      return std::max_element(steps_.begin(), steps_.end(),
                              [](const auto& a, const auto& b) { return a.second.size() < b.second.size(); })
          ->first;
    }
    std::map<std::int32_t, std::int64_t> count;
    for (const auto& op : ops_) ++count[op.tid];
    return std::max_element(count.begin(), count.end(),
                            [](const auto& a, const auto& b) { return a.second < b.second; })
        ->first;
  }

  // The outermost compute operators of the main thread; an operator inside a communication call (its
  // allocations, copies) is the call's.
  void cpu(RankTimeline& t) {
    const std::int32_t tid = main_thread();
    for (const auto& [os_tid, id] : threads_)
      if (id == tid) t.what = "CPU operators of thread " + std::to_string(os_tid);
    if (const auto it = steps_.find(tid); it != steps_.end()) t.steps = it->second;
    std::vector<CpuOp>& ops = ops_;
    ops.erase(std::remove_if(ops.begin(), ops.end(), [tid](const CpuOp& op) { return op.tid != tid; }), ops.end());
    std::stable_sort(ops.begin(), ops.end(), [](const CpuOp& a, const CpuOp& b) {
      return a.start_ns != b.start_ns ? a.start_ns < b.start_ns : a.end_ns > b.end_ns;
    });
    std::int64_t comm_end = -1, compute_end = -1;
    for (const auto& op : ops) {
      if (op.comm != 0) {
        const std::string& call = calls_[op.comm - 1];
        if (op.start_ns >= comm_end) t.comms.push_back({{op.start_ns, op.end_ns}, is_p2p_op(call), call});
        comm_end = std::max(comm_end, op.end_ns);
        continue;
      }
      if (op.start_ns < comm_end || op.start_ns < compute_end) continue;  // inside a call, or nested
      t.compute.push_back({op.start_ns, op.end_ns});
      compute_end = op.end_ns;
    }
  }

  void finish(RankTimeline& t) {
    const auto shift = [this](TimeSpan& s) {
      s.start_ns += base_ns_;
      s.end_ns += base_ns_;
    };
    const auto by_start = [](const auto& a, const auto& b) { return a.start_ns < b.start_ns; };
    for (auto& s : t.steps) shift(s);
    for (auto& s : t.compute) shift(s);
    for (auto& c : t.comms) shift(c.at);
    for (auto& m : markers_) shift(m.at);
    for (auto& s : optimizer_) shift(s);
    std::sort(t.steps.begin(), t.steps.end(), by_start);
    std::sort(t.compute.begin(), t.compute.end(), by_start);
    std::sort(t.comms.begin(), t.comms.end(),
              [](const auto& a, const auto& b) { return a.at.start_ns < b.at.start_ns; });
    std::sort(markers_.begin(), markers_.end(),
              [](const auto& a, const auto& b) { return a.at.start_ns < b.at.start_ns; });
    std::sort(optimizer_.begin(), optimizer_.end(), by_start);
    t.markers = std::move(markers_);
    t.optimizer = std::move(optimizer_);
  }

  std::string path_;
  std::int64_t base_ns_ = 0;
  std::vector<Kernel> kernels_;
  std::vector<CpuOp> ops_;
  std::map<std::int32_t, std::vector<TimeSpan>> steps_;  // by thread (numbered by thread_of)
  std::map<std::int64_t, std::int32_t> threads_;         // the trace's tid -> its number
  std::vector<std::string> calls_;
  std::vector<PassMarker> markers_;
  std::vector<TimeSpan> optimizer_;
};

}  // namespace

std::optional<PassMarker> parse_pass_marker(const std::string& name) {
  if (!starts_with(name, "PP:")) return std::nullopt;
  std::size_t i = 3;
  const auto digits = [&name, &i](std::int64_t& out) {
    const std::size_t from = i;
    out = 0;
    while (i < name.size() && std::isdigit(static_cast<unsigned char>(name[i])) && i - from < 9)
      out = out * 10 + (name[i++] - '0');
    return i > from && (i == name.size() || !std::isdigit(static_cast<unsigned char>(name[i])));
  };
  PassMarker m;
  std::int64_t stage = 0;
  if (!digits(stage) || i >= name.size()) return std::nullopt;
  m.stage = static_cast<int>(stage);
  m.pass = name[i++];
  if (m.pass != 'F' && m.pass != 'B' && m.pass != 'I' && m.pass != 'W') return std::nullopt;
  if (!digits(m.microbatch) || i != name.size()) return std::nullopt;
  return m;
}

RankTimeline read_rank_timeline(const std::string& path) {
  if (detect_trace_format(path) == TraceFormat::kSqlite) {
#if PB_HAVE_SQLITE
    return read_rank_timeline_nsys(path);
#else
    throw UsageError(path +
                     ": an Nsight Systems export, but this pipebench was built without SQLite (install "
                     "libsqlite3-dev and rebuild)");
#endif
  }
  return TimelineReader(path).read();
}

std::vector<RankTimeline> read_rank_timelines(const std::vector<std::string>& paths) {
  return read_each_file<RankTimeline>(paths.size(), [&paths](std::size_t i) { return read_rank_timeline(paths[i]); });
}

}  // namespace pipebench
