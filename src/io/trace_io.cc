// SPDX-License-Identifier: Apache-2.0
// Trace JSON.
#include "io/trace_io.h"

#include <string>

#include "core/version.h"
#include "io/json_fields.h"
#include "io/provenance_io.h"

namespace pipebench {

using nlohmann::json;

namespace {

template <typename T>
json or_null(const std::optional<T>& v) {
  return v ? json(*v) : json(nullptr);
}
json or_null(const std::string& s) { return s.empty() ? json(nullptr) : json(s); }

std::string opt_string(const JsonFields& f, const json& parent, const std::string& path, const std::string& key) {
  return f.or_null(parent, path, key, &JsonFields::get_string).value_or("");
}

TraceDevice device_of(const DeviceProfile& d, std::optional<int> rank) {
  TraceDevice out{
      d.device,  d.name, rank, ns_to_us(d.span_ns()), d.share(d.busy_ns), d.share(d.comm_ns), ns_to_us(d.comm_ns),
      d.kernels, {},     {}};
  for (const auto& r : d.rows) {
    out.kernels.push_back({r.name, r.stream, d.share(r.total_ns), r.count, ns_to_us(r.total_ns), ns_to_us(r.min_ns),
                           ns_to_us(r.max_ns), ns_to_us(r.total_ns) / static_cast<double>(r.count), r.comm,
                           r.nvtx_range});
  }
  for (const auto& c : d.collectives) {
    out.collectives.push_back({c.op, c.elements >= 0 ? std::optional<std::int64_t>(c.elements) : std::nullopt,
                               c.bytes(), c.dtype, c.count,
                               c.group_size >= 0 ? std::optional<int>(c.group_size) : std::nullopt, c.source});
  }
  return out;
}

json device_to_json(const TraceDevice& d) {
  json kernels = json::array(), collectives = json::array();
  for (const auto& k : d.kernels) {
    kernels.push_back({{"name", k.name},
                       {"stream", k.stream},
                       {"share", k.share},
                       {"count", k.count},
                       {"total_us", k.total_us},
                       {"min_us", k.min_us},
                       {"max_us", k.max_us},
                       {"mean_us", k.mean_us},
                       {"comm", k.comm},
                       {"nvtx_range", k.nvtx_range}});
  }
  for (const auto& c : d.collectives) {
    collectives.push_back({{"op", c.op},
                           {"elements", or_null(c.elements)},
                           {"bytes", or_null(c.bytes)},
                           {"dtype", or_null(c.dtype)},
                           {"count", c.count},
                           {"group_size", or_null(c.group_size)},
                           {"source", c.source}});
  }
  return {{"device", d.device},        {"name", or_null(d.name)},        {"rank", or_null(d.rank)},
          {"span_us", d.span_us},      {"busy_share", d.busy_share},     {"comm_share", d.comm_share},
          {"comm_us", d.comm_us},      {"kernel_count", d.kernel_count}, {"kernels", kernels},
          {"collectives", collectives}};
}

TraceKernel read_kernel(const JsonFields& f, const json& k, const std::string& p) {
  if (!k.is_object()) f.fail(p, "is not an object");
  return {f.get_string(k, p, "name"),    f.get_i64(k, p, "stream"),      f.get_double(k, p, "share"),
          f.get_i64(k, p, "count"),      f.get_double(k, p, "total_us"), f.get_double(k, p, "min_us"),
          f.get_double(k, p, "max_us"),  f.get_double(k, p, "mean_us"),  f.get_bool(k, p, "comm"),
          f.get_bool(k, p, "nvtx_range")};
}

TraceCollective read_collective(const JsonFields& f, const json& c, const std::string& p) {
  if (!c.is_object()) f.fail(p, "is not an object");
  return {f.get_string(c, p, "op"),
          f.or_null(c, p, "elements", &JsonFields::get_i64),
          f.or_null(c, p, "bytes", &JsonFields::get_i64),
          opt_string(f, c, p, "dtype"),
          f.get_i64(c, p, "count"),
          f.or_null(c, p, "group_size", &JsonFields::get_int),
          f.get_string(c, p, "source")};
}

TraceDevice read_device(const JsonFields& f, const json& d, const std::string& p) {
  if (!d.is_object()) f.fail(p, "is not an object");
  TraceDevice out{f.get_int(d, p, "device"),
                  opt_string(f, d, p, "name"),
                  f.or_null(d, p, "rank", &JsonFields::get_int),
                  f.get_double(d, p, "span_us"),
                  f.get_double(d, p, "busy_share"),
                  f.get_double(d, p, "comm_share"),
                  f.get_double(d, p, "comm_us"),
                  f.get_i64(d, p, "kernel_count"),
                  {},
                  {}};
  out.kernels = f.list(d, p, "kernels", read_kernel);
  out.collectives = f.list(d, p, "collectives", read_collective);
  return out;
}

}  // namespace

TraceFile trace_file(const TraceProfile& p, const PlanCheck* check) {
  TraceFile t;
  static_cast<ProfileSummary&>(t) = p;
  t.tool_version = kToolVersion;
  for (const auto& d : p.devices) {
    std::optional<int> rank;
    if (check != nullptr) {
      for (const auto& r : check->ranks)
        if (r.device == d.device) rank = r.rank;
    } else if (p.rank && p.devices.size() == 1) {
      rank = *p.rank;
    }
    t.devices.push_back(device_of(d, rank));
  }
  if (check != nullptr) t.plan_check = plan_check_to_json(*check);
  return t;
}

json trace_to_json(const TraceFile& t) {
  json devices = json::array();
  for (const auto& d : t.devices) devices.push_back(device_to_json(d));
  json doc = {{"schema", kTraceSchema},
              {"tool_version", t.tool_version},
              {"file", t.path},
              {"source", t.source},
              {"format_version", or_null(t.format_version)},
              {"by", t.by},
              {"kernel_rows", t.kernel_rows},
              {"skipped_rows", t.skipped_rows},
              {"skipped", t.skipped_by_reason},
              {"nvtx",
               {{"ranges", t.nvtx_ranges},
                {"collective_texts", t.collective_texts},
                {"unparsed_texts", t.unparsed_texts},
                {"nccl_ranges", t.nccl_ranges},
                {"nccl_payload_sizes", t.nccl_payload_sizes}}},
              {"profiler_steps", t.profiler_steps},
              {"rank", or_null(t.rank)},
              {"world_size", or_null(t.world_size)},
              {"damage", or_null(t.damage)},
              {"notes", t.notes},
              {"devices", devices}};
  if (t.plan_check) doc["plan_check"] = *t.plan_check;
  add_provenance(doc);
  return doc;
}

TraceFile trace_from_json(const json& j, const std::string& where) {
  const JsonFields f(where);
  f.require_schema(j, kTraceSchema, "pipebench trace");
  TraceFile t;
  t.tool_version = f.get_string(j, "", "tool_version");
  t.path = f.get_string(j, "", "file");
  t.source = f.get_string(j, "", "source");
  t.format_version = opt_string(f, j, "", "format_version");
  t.by = f.get_string(j, "", "by");
  t.kernel_rows = f.get_i64(j, "", "kernel_rows");
  t.skipped_rows = f.get_i64(j, "", "skipped_rows");
  for (const auto& [reason, count] : f.object(j, "", "skipped").items()) {
    (void)count;
    t.skipped_by_reason[reason] = f.get_i64(j["skipped"], "skipped", reason);
  }
  const json& nvtx = f.object(j, "", "nvtx");
  t.nvtx_ranges = f.get_i64(nvtx, "nvtx", "ranges");
  t.collective_texts = f.get_i64(nvtx, "nvtx", "collective_texts");
  t.unparsed_texts = f.get_i64(nvtx, "nvtx", "unparsed_texts");
  f.get_if(nvtx, "nvtx", "nccl_ranges", t.nccl_ranges);
  f.get_if(nvtx, "nvtx", "nccl_payload_sizes", t.nccl_payload_sizes);
  t.profiler_steps = f.get_int(j, "", "profiler_steps");
  t.rank = f.or_null(j, "", "rank", &JsonFields::get_int);
  t.world_size = f.or_null(j, "", "world_size", &JsonFields::get_int);
  t.damage = opt_string(f, j, "", "damage");
  t.notes = f.get_strings(j, "", "notes");
  t.devices = f.list(j, "", "devices", read_device);
  if (j.contains("plan_check")) t.plan_check = f.object(j, "", "plan_check");
  t.job = trace_job_from_json(j, where);
  return t;
}

}  // namespace pipebench
