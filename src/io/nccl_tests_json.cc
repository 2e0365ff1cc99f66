// SPDX-License-Identifier: Apache-2.0
// nccl-tests `-J` JSON (versions 1-3: nccl-tests src/util.cu jsonOutputInit, writeDeviceReport,
// writeBenchmarkLine*, writePerIterReport, writeResultFooter). nccl-tests writes it as it runs, so a run
// that dies leaves the file cut short: its tree (core/json_tree.h) holds each result object that was
// complete, and those are kept even when the document as a whole does not parse.
#include <cmath>
#include <nlohmann/json.hpp>

#include "core/json_tree.h"
#include "io/nccl_tests_log.h"
#include "io/nccl_tests_parts.h"
#include "io/nccl_tests_row_order.h"

namespace pipebench {

namespace {

using nlohmann::json;

// A JSON number (nccl-tests writes NaN as the string "nan") that is finite.
bool number_at(const json& o, const char* key, double& out) {
  if (!o.is_object() || !o.contains(key) || !o.at(key).is_number()) return false;
  out = o.at(key).get<double>();
  return std::isfinite(out);
}

bool int_at(const json& o, const char* key, int& out, int lo, int hi) {
  double v = 0;
  if (!number_at(o, key, v) || v < lo || v > hi || v != std::floor(v)) return false;
  out = static_cast<int>(v);
  return true;
}

std::string string_at(const json& o, const char* key) {
  return o.is_object() && o.contains(key) && o.at(key).is_string() ? o.at(key).get<std::string>() : "";
}

// A config count: absent is fine (older schema versions), present must be an integer in [lo, hi]; else
// the file is refused naming the field (a value read as 0 would make a plausible wrong rank count).
void config_int(const json& c, const char* key, int& out, int lo, int hi, std::string& refused) {
  if (!c.is_object() || !c.contains(key)) return;
  if (c.at(key).is_boolean()) {  // "graph": true/false in some versions
    out = c.at(key).get<bool>() ? 1 : 0;
    return;
  }
  if (int_at(c, key, out, lo, hi)) return;
  if (refused.empty()) {
    refused = "config." + std::string(key) + " " + c.at(key).dump() + " is not an integer in [" + std::to_string(lo) +
              ", " + std::to_string(hi) + "]";
  }
}

void read_config(const json& c, NcclTestsLog& log, std::string& refused) {
  config_int(c, "nthreads", log.nthreads, 1, 1 << 16, refused);
  config_int(c, "ngpus", log.ngpus, 1, 1 << 16, refused);
  config_int(c, "iterations", log.iters, 0, 1 << 30, refused);
  config_int(c, "warmup_iters", log.warmup, 0, 1 << 30, refused);
  config_int(c, "aggregated_iterations", log.agg_iters, 1, 1 << 30, refused);
  config_int(c, "graph", log.graph, 0, 1 << 30, refused);
  if (!c.contains("devices") || !c.at("devices").is_array()) return;
  for (const auto& e : c.at("devices")) {
    NcclTestsDevice d;
    if (!int_at(e, "rank", d.rank, 0, 1 << 24)) continue;
    (void)int_at(e, "group", d.group, 0, 1 << 24);
    (void)int_at(e, "pid", d.pid, 0, 1 << 30);
    (void)int_at(e, "device", d.device, 0, 1 << 16);
    d.host = string_at(e, "hostname");
    d.bus_id = string_at(e, "device_hex");
    d.model = string_at(e, "device_info");
    log.devices.push_back(d);
  }
}

// One placement ({time|cpu_time, alg_bw, bus_bw, nwrong}) with its per-iteration block; "" or why not.
std::string read_placement(const json& p, const json* per_iter, ResultRecord& r) {
  if (!p.is_object()) return "results without both placements";
  double time = 0;
  if (!number_at(p, "time", time) && !number_at(p, "cpu_time", time)) return "results with a time that is not a number";
  if (!number_at(p, "alg_bw", r.algbw_gbps) || !number_at(p, "bus_bw", r.busbw_gbps)) {
    return "results with a bandwidth that is not a number";
  }
  if (time <= 0 || time > 1e12 || r.algbw_gbps < 0 || r.busbw_gbps < 0 || r.algbw_gbps > 1e9 || r.busbw_gbps > 1e9) {
    return "results with a time or bandwidth out of range";
  }
  r.time_us = time;
  if (p.contains("nwrong") && !p.at("nwrong").is_null() && !(p.at("nwrong").is_string() && p.at("nwrong") == "N/A")) {
    double wrong = -1;
    if (!number_at(p, "nwrong", wrong) || wrong < 0 || wrong >= 9e18 || wrong != std::floor(wrong)) {
      return "results with an nwrong that is not a count";
    }
    r.wrong = static_cast<std::int64_t>(wrong);
  }
  if (per_iter && per_iter->is_object()) {
    // -I: CUDA-event statistics per outer iteration (computeIterStats), beside the host-clock mean.
    Stats s;
    const bool all = number_at(*per_iter, "min_us", s.min_us) && number_at(*per_iter, "max_us", s.max_us) &&
                     number_at(*per_iter, "avg_us", s.mean_us) && number_at(*per_iter, "p50_us", s.median_us) &&
                     number_at(*per_iter, "p95_us", s.p95_us) && number_at(*per_iter, "stdev_us", s.stddev_us);
    const json& times = per_iter->contains("times_us") ? per_iter->at("times_us") : json();
    int skipped = 0;
    (void)int_at(*per_iter, "skipped_iterations", skipped, 0, 1 << 30);
    if (all && s.min_us > 0 && times.is_array() && static_cast<int>(times.size()) > skipped) {
      s.samples = static_cast<int>(times.size()) - skipped;
      r.stats = s;
    }
  }
  return "";
}

std::string read_result(const json& e, std::vector<ResultRecord>& out) {
  ResultRecord base;
  base.backend = "nccl";
  double size = 0, count = 0;
  if (!number_at(e, "size", size) || !number_at(e, "count", count) || size < 0 || count < 0 || size > 9e18 ||
      count > 9e18) {
    return "results with a size or count that is not a number";
  }
  base.size_bytes = static_cast<std::uint64_t>(size);
  base.count = static_cast<std::uint64_t>(count);
  base.dtype = string_at(e, "type");
  base.redop = string_at(e, "redop");
  if (base.redop.empty()) base.redop = "none";
  // "root" is the row's text, "%6i" (writeBenchmarkLinePreamble).
  const std::string root = string_at(e, "root");
  char* end = nullptr;
  const long r = std::strtol(root.c_str(), &end, 10);
  if (!root.empty() && (*end != '\0' || r < -1 || r > (1 << 24))) return "results with a root that is not a rank";
  base.root = root.empty() ? -1 : static_cast<int>(r);
  if (base.dtype.empty()) return "results without a type";
  if (const std::string why = nccl_tests_names_problem(base.dtype, base.redop); !why.empty()) return "results " + why;
  ResultRecord oop = base, ip = base;
  ip.in_place = true;
  const auto block = [&e](const char* key) { return e.contains(key) ? &e.at(key) : nullptr; };
  const json none;
  // A placement written as null was not run (nccl-tests writeBenchMarkLineNullBody; pipebench -J for ops
  // without an in-place form): the row keeps the other one.
  const bool has_oop = !(e.contains("out_of_place") && e.at("out_of_place").is_null());
  const bool has_ip = !(e.contains("in_place") && e.at("in_place").is_null());
  if (!has_oop && !has_ip) return "results without both placements";
  std::string why;
  if (has_oop) {
    why = read_placement(e.contains("out_of_place") ? e.at("out_of_place") : none, block("out_of_place_per_iter"), oop);
  }
  if (why.empty() && has_ip) {
    why = read_placement(e.contains("in_place") ? e.at("in_place") : none, block("in_place_per_iter"), ip);
  }
  if (!why.empty()) return why;
  if (has_oop) out.push_back(oop);
  if (has_ip) out.push_back(ip);
  return "";
}

// Why the results cannot be one run's (io/nccl_tests_row_order.h), or "". A row's in-place record
// follows its out-of-place one.
std::string row_order_problem(const NcclTestsLog& log) {
  NcclTestsRowOrder order;
  const ResultRecord* before = nullptr;
  for (const ResultRecord& r : log.records) {
    const bool same_row = before && r.in_place && !before->in_place && r.size_bytes == before->size_bytes &&
                          r.dtype == before->dtype && r.redop == before->redop && r.root == before->root;
    before = &r;
    if (same_row) continue;
    if (std::string why = order.add(r.dtype, r.redop, r.root, r.size_bytes); !why.empty()) return why;
  }
  return log.concluded ? order.footer() : "";
}

// The header, config, results and footer of a -J document (or what a cut one completed) into `log`.
void read_document(const json& doc, NcclTestsLog& log, NcclTestsFile& file) {
  if (doc.contains("version")) {
    // Schema versions 1-3 (nccl-tests.md, "-J"): another is a format this reader does not know.
    const json& v = doc.at("version");
    if (!v.is_number_integer() || v.get<std::int64_t>() < 1 || v.get<std::int64_t>() > 3) {
      file.refused = "version " + v.dump() + " is not a -J schema version (1-3)";
    } else {
      log.format = "json v" + std::to_string(v.get<int>());
    }
  }
  double code = 0;
  if (number_at(doc, "nccl_version", code)) log.nccl_version = nccl_version_text(static_cast<long>(code));
  const json& args = doc.contains("args") ? doc.at("args") : json();
  if (args.is_array() && !args.empty() && args[0].is_string()) {
    log.program = args[0].get<std::string>();
    const auto slash = log.program.find_last_of('/');
    if (slash != std::string::npos) log.program.erase(0, slash + 1);
  }
  if (doc.contains("config") && doc.at("config").is_object()) read_config(doc.at("config"), log, file.refused);
  std::string named;  // a row's experiment_name: pipebench -J names the op there ("all_reduce_perf")
  if (doc.contains("results") && doc.at("results").is_array()) {
    for (const json& e : doc.at("results")) {
      if (!e.is_object()) continue;
      if (named.empty()) named = string_at(e, "experiment_name");
      const std::string why = read_result(e, log.records);
      if (!why.empty()) ++file.skipped[why];
    }
  }
  if (doc.contains("average_bus_bandwidth") && doc.at("average_bus_bandwidth").is_object()) {
    double bw = 0;
    if (number_at(doc.at("average_bus_bandwidth"), "bandwidth", bw) && bw >= 0) log.avg_busbw_gbps = bw;
    log.concluded = true;
  }
  if (const std::string why = row_order_problem(log); !why.empty() && file.refused.empty()) {
    file.refused = why + ": " + kNcclTestsRunsMixed;
  }
  if (nccl_tests_log_op(log.program).empty() && !nccl_tests_log_op(named).empty()) log.program = named;
}

}  // namespace

NcclTestsFile parse_nccl_tests_json(std::string_view text, const NcclTestsHints& hints) {
  NcclTestsFile file;
  NcclTestsLog log;
  log.format = "json";
  // A cut file's tree keeps its complete result objects (core/json_tree.h).
  const JsonTree tree = parse_json_tree(text, DuplicateKeys::kLastWins);
  if (!tree.whole) ++file.skipped["JSON files cut short or damaged (the complete results before it kept)"];
  if (tree.whole && (!tree.value.is_object() || !tree.value.contains("results"))) {
    ++file.skipped["JSON documents that are not nccl-tests -J output"];
    return file;
  }
  if (tree.value.is_object()) read_document(tree.value, log, file);
  file.logs.push_back(std::move(log));
  finish_log(file.logs.back(), hints, file.skipped);
  return file;
}

}  // namespace pipebench
