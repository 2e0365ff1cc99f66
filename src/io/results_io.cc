// SPDX-License-Identifier: Apache-2.0
// Results JSON, read back.
#include "io/results_io.h"

#include <cmath>
#include <limits>
#include <map>
#include <utility>

#include "collectives/registry.h"
#include "core/error.h"
#include "core/json_file.h"
#include "io/json_fields.h"
#include "io/pass_costs_io.h"
#include "topology/link_band.h"
#include "topology/topology.h"

namespace pipebench {

using nlohmann::json;

namespace {

// An integer 0 .. 2^63-1: a larger one (2^64 arrives as a double) would wrap when converted.
std::uint64_t size_field(const JsonFields& f, const json& j, const std::string& path, const std::string& key) {
  const json& v = f.at(j, path, key);
  if (!v.is_number_integer() || (v.is_number_unsigned() && v.get<std::uint64_t>() > (std::uint64_t{1} << 63) - 1) ||
      (!v.is_number_unsigned() && v.get<std::int64_t>() < 0)) {
    f.fail(JsonFields::join(path, key), "is not a size in bytes");
  }
  return v.get<std::uint64_t>();
}

void read_stats(const JsonFields& f, const json& j, const std::string& path, Stats& s) {
  const json& st = f.object(j, path, "stats");
  const std::string p = JsonFields::join(path, "stats");
  if (st.contains("samples")) s.samples = f.get_in<int>(st, p, "samples", 0, std::numeric_limits<int>::max());
  const std::pair<const char*, double Stats::*> fields[] = {
      {"min_us", &Stats::min_us}, {"median_us", &Stats::median_us}, {"mean_us", &Stats::mean_us},
      {"p95_us", &Stats::p95_us}, {"max_us", &Stats::max_us},       {"stddev_us", &Stats::stddev_us}};
  for (const auto& [key, member] : fields) {
    if (st.contains(key)) s.*member = f.get_non_negative<double>(st, p, key);
  }
}

// bench --plan's at-once records: two or more disjoint groups of one size whose union is the record's ranks.
void read_at_once(const JsonFields& f, const json& j, const std::string& path, ResultRecord& r) {
  r.at_once = f.get_int_lists(j, path, "at_once");
  const std::string where = JsonFields::join(path, "at_once");
  if (r.at_once.size() < 2) f.fail(where, "must list two or more groups");
  std::vector<int> all;
  for (const auto& g : r.at_once) {
    if (g.empty() || g.size() != r.at_once.front().size()) f.fail(where, "must list groups of one size");
    all.insert(all.end(), g.begin(), g.end());
  }
  std::sort(all.begin(), all.end());
  std::vector<int> ranks = r.ranks;
  std::sort(ranks.begin(), ranks.end());
  if (std::adjacent_find(all.begin(), all.end()) != all.end() || all != ranks)
    f.fail(where, "must be disjoint groups whose union is the record's ranks");
}

// Optional fields keep their defaults when absent, and must have their type when present.
void read_optional(const JsonFields& f, const json& j, const std::string& path, ResultRecord& r) {
  f.get_if(j, path, "backend", r.backend);
  if (j.contains("nranks")) r.nranks = f.get_in<int>(j, path, "nranks", 1, kMaxRecordRanks);
  f.get_if(j, path, "dtype", r.dtype);
  f.get_if(j, path, "redop", r.redop);
  if (j.contains("root")) r.root = f.get_in<int>(j, path, "root", -1, kMaxRecordRanks - 1);
  if (j.contains("count")) r.count = size_field(f, j, path, "count");
  f.get_if(j, path, "in_place", r.in_place);
  if (j.contains("algbw_gbps")) r.algbw_gbps = f.get_non_negative<double>(j, path, "algbw_gbps");
  if (j.contains("busbw_gbps")) r.busbw_gbps = f.get_non_negative<double>(j, path, "busbw_gbps");
  if (j.contains("wrong") && !j["wrong"].is_null()) {
    r.wrong = f.get_i64(j, path, "wrong");
    if (r.wrong < 0) f.fail(JsonFields::join(path, "wrong"), "is negative (null is written for a point not checked)");
  }
  if (j.contains("ops_per_batch")) r.ops_per_batch = f.get_in<int>(j, path, "ops_per_batch", 0, 1 << 30);
  if (j.contains("warmup")) r.warmup = f.get_in<int>(j, path, "warmup", 0, 1 << 30);
  f.get_if(j, path, "graph", r.graph);
  f.get_if(j, path, "class", r.link_class, true);
  if (j.contains("path_min_gbps") && !j["path_min_gbps"].is_null()) {
    r.path_min_gbps = f.get_non_negative<double>(j, path, "path_min_gbps");
  }
  if (j.contains("stats")) read_stats(f, j, path, r.stats);
  f.get_if(j, path, "plan_ids", r.plan_ids);
  f.get_if(j, path, "error", r.error);
  f.get_if(j, path, "timestamp", r.timestamp);
  f.get_if(j, path, "split_group", r.split_group);
  if (j.contains("at_once")) read_at_once(f, j, path, r);
  if (j.contains("pairs")) {
    for (const auto& p : f.get_int_lists(j, path, "pairs")) {
      if (p.size() != 2) f.fail(path + ".pairs", "has an entry that is not [src, dst]");
      r.pairs.push_back({p[0], p[1]});
    }
  }
  // A transfer's record without a direction is the bidirectional figure (what bench --plan measures).
  r.bidirectional = j.contains("bidirectional") ? f.get_bool(j, path, "bidirectional")
                                                : OpRegistry::instance().traits(r.op).is_transfer;
}

// A count or generation that may be null or absent: `unknown` then.
int optional_count(const JsonFields& f, const json& j, const std::string& path, const std::string& key, int unknown) {
  if (!j.contains(key) || j[key].is_null()) return unknown;
  const int v = f.get_int(j, path, key);
  if (v < 0) f.fail(JsonFields::join(path, key), "is negative");
  return v;
}

// `seen`: link_state_during_run names the generation and width pcie_gen_seen/pcie_width_seen.
std::vector<LinkStateEntry> read_link_state(const JsonFields& f, const json& parent, const std::string& path,
                                            const std::string& key, bool seen) {
  return f.list(parent, path, key, [seen](const JsonFields& f, const json& row, const std::string& p) {
    if (!row.is_object()) f.fail(p, "is not an object");
    LinkStateEntry e;
    e.gpu = f.get_int(row, p, "gpu");
    f.get_if(row, p, "bus_id", e.bus_id, true);
    e.pcie_gen = optional_count(f, row, p, seen ? "pcie_gen_seen" : "pcie_gen", 0);
    e.pcie_width = optional_count(f, row, p, seen ? "pcie_width_seen" : "pcie_width", 0);
    e.pcie_gen_max = optional_count(f, row, p, "pcie_gen_max", 0);
    e.pcie_width_max = optional_count(f, row, p, "pcie_width_max", 0);
    e.nvlinks_up = optional_count(f, row, p, "nvlinks_up", -1);
    e.nvlinks_down = optional_count(f, row, p, "nvlinks_down", -1);
    e.samples = optional_count(f, row, p, "samples", 0);
    return e;
  });
}

SystemDevice read_device(const JsonFields& f, const json& d, const std::string& path) {
  SystemDevice out;
  out.rank = f.get_int(d, path, "rank");
  f.get_if(d, path, "host", out.host);
  f.get_if(d, path, "bus_id", out.bus_id, true);
  f.get_if(d, path, "pid", out.pid);
  f.get_if(d, path, "device", out.device);
  f.get_if(d, path, "model", out.model);
  f.get_if(d, path, "group", out.group);
  return out;
}

// An object of strings; another value is kept as its JSON text.
std::map<std::string, std::string> read_texts(const JsonFields& f, const json& sys, const std::string& key) {
  std::map<std::string, std::string> out;
  for (const auto& [k, v] : f.object(sys, "system", key).items())
    out[k] = v.is_string() ? v.get<std::string>() : v.dump();
  return out;
}

SystemInfo read_system(const JsonFields& f, const json& j) {
  SystemInfo s;
  if (!j.contains("system")) return s;
  const json& sys = f.object(j, "", "system");
  if (sys.contains("devices")) s.devices = f.list(sys, "system", "devices", read_device);
  if (sys.contains("hosts")) s.hosts = f.get_strings(sys, "system", "hosts");
  if (sys.contains("gpu_models")) s.gpu_models = f.get_strings(sys, "system", "gpu_models");
  f.get_if(sys, "system", "processes", s.processes);
  if (sys.contains("versions")) s.versions = read_texts(f, sys, "versions");
  if (sys.contains("environment")) s.environment = read_texts(f, sys, "environment");
  if (sys.contains("topology")) s.topology_json = sys["topology"];
  if (sys.contains("link_state")) {
    const json& ls = f.object(sys, "system", "link_state");
    s.has_link_start = ls.contains("start");
    s.has_link_end = ls.contains("end");
    if (s.has_link_start) s.link_start = read_link_state(f, ls, "system.link_state", "start", false);
    if (s.has_link_end) s.link_end = read_link_state(f, ls, "system.link_state", "end", false);
  }
  return s;
}

// A link value, or null where unknown (`unknown` or below).
json known(int v, int unknown) { return v > unknown ? json(v) : json(nullptr); }

json links_to_json(const std::vector<LinkStateEntry>& links, bool seen) {
  json out = json::array();
  for (const auto& e : links) {
    json row = {{"gpu", e.gpu},
                {"bus_id", e.bus_id},
                {seen ? "pcie_gen_seen" : "pcie_gen", known(e.pcie_gen, 0)},
                {seen ? "pcie_width_seen" : "pcie_width", known(e.pcie_width, 0)},
                {"pcie_gen_max", known(e.pcie_gen_max, 0)},
                {"pcie_width_max", known(e.pcie_width_max, 0)}};
    if (seen) row["samples"] = e.samples;
    if (!seen) row["nvlinks_up"] = known(e.nvlinks_up, -1);
    if (!seen) row["nvlinks_down"] = known(e.nvlinks_down, -1);
    out.push_back(std::move(row));
  }
  return out;
}

// An import (`imported`) knows no launch environment.
json system_to_json(const SystemInfo& s, bool imported) {
  json j = {{"hosts", s.hosts},
            {"processes", s.processes},
            {"gpu_models", s.gpu_models},
            {"devices", s.devices},
            {"versions", s.versions}};
  if (!imported) j["environment"] = s.environment;
  if (!s.topology_json.is_null()) j["topology"] = s.topology_json;
  if (s.has_link_start) j["link_state"]["start"] = links_to_json(s.link_start, false);
  if (s.has_link_end) j["link_state"]["end"] = links_to_json(s.link_end, false);
  return j;
}

}  // namespace

ResultRecord record_from_json(const json& j, const std::string& where) {
  const JsonFields f(where);
  if (!j.is_object()) f.fail("record", "is not an object");
  ResultRecord r;
  r.op = f.get_string(j, "", "op");
  r.ranks = f.get_ints(j, "", "ranks");
  r.size_bytes = size_field(f, j, "", "size_bytes");
  r.time_us = f.get_non_negative<double>(j, "", "time_us");
  read_optional(f, j, "", r);
  return r;
}

ResultSet results_from_json(const json& j, const std::string& where) {
  if (!j.is_object() || j.value("schema", "") != kResultsSchema) {
    throw UsageError(where + ": not a " + std::string(kResultsSchema) + " file");
  }
  const JsonFields f(where);
  ResultSet rs;
  rs.system = system_as_read(read_system(f, j), where);
  if (j.contains("tool_version")) rs.tool_version = f.get_string(j, "", "tool_version");
  if (j.contains("created_utc")) rs.created_utc = f.get_string(j, "", "created_utc");
  if (j.contains("source")) rs.source = f.get_string(j, "", "source");
  if (j.contains("command_line")) rs.command_line = f.get_string(j, "", "command_line");
  if (j.contains("config")) rs.config = j["config"];
  if (j.contains("link_state_during_run")) {
    rs.link_during_run = read_link_state(f, j, "", "link_state_during_run", true);
  }
  if (j.contains("pass_costs")) rs.pass_costs = pass_costs_from_json(f, j, "", "pass_costs");
  const json& records = f.array(j, "", "records");
  for (std::size_t i = 0; i < records.size(); ++i) {
    rs.records.push_back(record_from_json(records[i], where + " " + JsonFields::item("records", i)));
  }
  return rs;
}

ResultSet load_results(const std::string& flag, const std::string& path) {
  return results_from_json(read_json_file(flag, path), flag + " " + path);
}

Placement place_ranks(const ResultSet& results) {
  if (!results.system.topology) return {};
  return place_ranks(*results.system.topology, {results.system.devices.begin(), results.system.devices.end()});
}

nlohmann::json record_to_json(const ResultRecord& r) {
  nlohmann::json j = {
      {"op", r.op},
      {"backend", r.backend},
      {"nranks", r.nranks},
      {"ranks", r.ranks},
      {"dtype", r.dtype},
      {"redop", r.redop},
      {"root", r.root},
      {"size_bytes", r.size_bytes},
      {"count", r.count},
      {"in_place", r.in_place},
      {"time_us", r.time_us},
      {"algbw_gbps", r.algbw_gbps},
      {"busbw_gbps", r.busbw_gbps},
      {"wrong", r.wrong < 0 ? nlohmann::json(nullptr) : nlohmann::json(r.wrong)},
      {"stats",
       {{"samples", r.stats.samples},
        {"min_us", r.stats.min_us},
        {"median_us", r.stats.median_us},
        {"mean_us", r.stats.mean_us},
        {"p95_us", r.stats.p95_us},
        {"max_us", r.stats.max_us},
        {"stddev_us", r.stats.stddev_us}}},
      {"ops_per_batch", r.ops_per_batch},
      {"warmup", r.warmup},
      {"graph", r.graph},
      {"class", r.link_class.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.link_class)},
      {"path_min_gbps", r.path_min_gbps ? nlohmann::json(*r.path_min_gbps) : nlohmann::json(nullptr)},
  };
  // The share of that link the point reached; absent where the link is unknown (never 0).
  if (const auto pct = pct_of_link(r.busbw_gbps, r.path_min_gbps)) j["pct_of_link"] = *pct;
  if (!r.pairs.empty()) {
    nlohmann::json pairs = nlohmann::json::array();
    for (const auto& p : r.pairs) pairs.push_back({p.src, p.dst});
    j["pairs"] = pairs;
    j["bidirectional"] = r.bidirectional;
  }
  if (!r.plan_ids.empty()) j["plan_ids"] = r.plan_ids;
  if (!r.error.empty()) j["error"] = r.error;
  if (!r.timestamp.empty()) j["timestamp"] = r.timestamp;
  if (r.split_group >= 0) j["split_group"] = r.split_group;
  if (!r.at_once.empty()) j["at_once"] = r.at_once;
  return j;
}

void to_json(json& j, const SystemDevice& d) {
  j = {{"rank", d.rank},     {"host", d.host},     {"pid", d.pid},
       {"device", d.device}, {"bus_id", d.bus_id}, {"model", d.model}};
  // An imported device whose bus id its log did not say has it unknown (null); a host rank's is "".
  if (d.group >= 0) j["group"] = d.group;
  if (d.group >= 0 && d.bus_id.empty()) j["bus_id"] = nullptr;
}

SystemDevice device_from_json(const json& j, const std::string& where) { return read_device(JsonFields(where), j, ""); }

SystemInfo system_as_read(SystemInfo s, const std::string& where) {
  for (auto& d : s.devices) d.bus_id = normalize_bus_id(d.bus_id);
  // A run that could not read its topology records {"error": ...} there instead.
  const json& t = s.topology_json;
  if (!s.topology && t.is_object() && t.contains("schema"))
    s.topology = topology_from_json(t, where + " system.topology");
  return s;
}

json results_header(const ResultsHeader& h) {
  json j = {{"schema", kResultsSchema},
            {"tool_version", h.tool_version},
            {"created_utc", h.created_utc},
            {"system", system_to_json(h.system, !h.source.empty())},
            {"records", json::array()}};
  if (!h.source.empty()) j["source"] = h.source;
  if (!h.command_line.empty()) j["command_line"] = h.command_line;
  if (!h.config.is_null()) j["config"] = h.config;
  if (h.system.has_link_end) j["link_state_during_run"] = links_to_json(h.link_during_run, true);
  if (h.pass_costs) j["pass_costs"] = pass_costs_to_json(*h.pass_costs);
  return j;
}

MeasuredTable measured_table(ResultSet results, const std::string& source) {
  MeasuredTable t;
  t.from_nccl_tests = results.source == "nccl-tests";
  if (!t.from_nccl_tests) t.placement = place_ranks(results);
  t.records = std::move(results.records);
  t.source = source;
  return t;
}

}  // namespace pipebench
