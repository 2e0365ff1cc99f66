// SPDX-License-Identifier: Apache-2.0
// Imported nccl-tests tests as one pipebench.results/1 file.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <set>

#include "core/error.h"
#include "core/terminal_text.h"
#include "core/version.h"
#include "io/nccl_tests_argument.h"
#include "io/nccl_tests_log.h"
#include "io/results_io.h"
#include "topology/topology.h"

namespace pipebench {

namespace {

using nlohmann::json;

// nccl-tests prints the PCI address as domain:bus:device ("0000:1b:00", 2.13+; writeDeviceReport) or,
// before 2.13, the bus alone ("0x1b"). Written as a full address with function 0 (and device 0 for the
// bus-only form: a GPU is function 0 of device 0 on its bus), so it joins a topology's GPUs.
std::string bus_address(const std::string& printed) {
  unsigned domain = 0, bus = 0, dev = 0;
  char out[32];
  if (std::sscanf(printed.c_str(), "%x:%x:%x", &domain, &bus, &dev) == 3 && domain <= 0xffff && bus <= 0xff &&
      dev <= 0x1f) {
    std::snprintf(out, sizeof out, "%04x:%02x:%02x.0", domain, bus, dev);
    return out;
  }
  if (std::sscanf(printed.c_str(), "0x%x", &bus) == 1 && bus <= 0xff) {
    std::snprintf(out, sizeof out, "0000:%02x:00.0", bus);
    return out;
  }
  return "";
}

void add_unique(std::vector<std::string>& list, const std::string& value) {
  if (!value.empty() && std::find(list.begin(), list.end(), value) == list.end()) list.push_back(value);
}

// The typed results of the imports (nccl_tests_results writes them): the hosts and GPU models of every
// test; the versions, like the devices, the first test's that says them (another file may be another
// machine: its hosts and models are listed, its ranks not); the settings of the first test with rows; every
// record.
ResultSet result_set(const std::vector<NcclTestsImport>& imports) {
  ResultSet rs;
  rs.tool_version = kToolVersion;
  rs.source = "nccl-tests";
  rs.config = json::object();
  std::set<std::pair<std::string, int>> processes;
  bool devices_listed = false;
  for (const auto& imp : imports) {
    for (const auto& log : imp.file.logs) {
      for (const auto& d : log.devices) {
        add_unique(rs.system.hosts, d.host);
        add_unique(rs.system.gpu_models, d.model);
        processes.insert({d.host, d.pid});
      }
      if (!log.version.empty()) rs.system.versions.emplace("nccl_tests", log.version);
      if (!log.nccl_version.empty()) rs.system.versions.emplace("nccl", log.nccl_version);
      if (!devices_listed && !log.devices.empty()) {
        devices_listed = true;
        for (const auto& d : log.devices)
          rs.system.devices.push_back({{d.rank, d.host, bus_address(d.bus_id)}, d.pid, d.device, d.model, d.group});
      }
      if (rs.config.empty() && !log.records.empty()) {
        rs.config = {{"nthreads", log.nthreads}, {"ngpus", log.ngpus},         {"iters", log.iters},
                     {"warmup", log.warmup},     {"agg_iters", log.agg_iters}, {"graph", log.graph > 0}};
      }
      rs.records.insert(rs.records.end(), log.records.begin(), log.records.end());
    }
  }
  rs.system.processes = static_cast<int>(processes.size());
  return rs;
}

}  // namespace

json nccl_tests_results(const std::vector<NcclTestsImport>& imports, const std::string& created_utc) {
  ResultSet rs = result_set(imports);
  rs.created_utc = created_utc;
  json from = json::array();
  for (const auto& imp : imports) {
    for (const auto& log : imp.file.logs) {
      from.push_back({{"file", imp.path},
                      {"format", log.format},
                      {"program", log.program},
                      {"op", log.op},
                      {"nccl_tests_version", log.version},
                      {"nranks", log.nranks},
                      {"groups", log.groups},
                      {"records", log.records.size()},
                      {"avg_busbw_gbps", log.avg_busbw_gbps < 0 ? json(nullptr) : json(log.avg_busbw_gbps)},
                      {"complete", log.concluded}});
    }
  }
  json doc = results_header(rs);
  for (const auto& r : rs.records) doc["records"].push_back(record_to_json(r));
  doc["imported_from"] = from;
  return doc;
}

namespace {

// import's reasons for rows left out, with its "give --op" said as FILE:OP (the one way to give the op here).
std::string skipped_text(const std::string& path, const std::map<std::string, int>& skipped) {
  static const std::string kGiveOp = "give --op";
  std::string out;
  for (const auto& [reason, count] : skipped) {
    std::string why = reason;
    if (const auto at = why.find(kGiveOp); at != std::string::npos) why.replace(at, kGiveOp.size(), give_op_text(path));
    out += (out.empty() ? "skipped " : "; skipped ") + std::to_string(count) + " " + why;
  }
  return out;
}

// One file's text read as nccl-tests output; nullopt when it holds no whole row and no test (not
// nccl-tests output); UsageError when it holds tests whose every row was left out for want of an op or a rank
// count.
std::optional<NcclTestsImport> import_of(const std::string& path, std::string_view text, const std::string& op,
                                         const std::string& flag) {
  NcclTestsHints hints;
  hints.op = op;
  hints.file_name = std::filesystem::path(path).filename().string();
  NcclTestsImport imp{path, parse_nccl_tests(text, hints)};
  const std::string where = flag.empty() ? path : flag + " " + path;
  if (!imp.file.refused.empty()) throw UsageError(where + ": " + imp.file.refused);
  std::size_t records = 0;
  for (const auto& log : imp.file.logs) records += log.records.size();
  // Only where the log was read and wants what it does not say (its op, its rank count): a file the reader
  // could not make out (damaged JSON, "{}{}") stays the caller's "not JSON".
  const bool wants_hint = std::any_of(imp.file.skipped.begin(), imp.file.skipped.end(),
                                      [](const auto& s) { return s.first.find("give --") != std::string::npos; });
  if (records == 0 && !imp.file.logs.empty() && wants_hint) {
    throw UsageError(where + ": nccl-tests output with no row read: " + skipped_text(path, imp.file.skipped));
  }
  if (records == 0) return std::nullopt;
  // As `import nccl-tests` says it: a host or GPU name in the results then differs from the log's bytes.
  if (imp.file.replaced_bytes > 0) {
    std::fprintf(stderr, "pipebench: warning: %s: %zu bytes that are not UTF-8 read as U+FFFD\n",
                 one_line(path).c_str(), imp.file.replaced_bytes);
  }
  return imp;
}

}  // namespace

std::optional<ResultSet> nccl_tests_result_set_of(const std::string& path, std::string_view text, const std::string& op,
                                                  const std::string& flag) {
  const std::optional<NcclTestsImport> imp = import_of(path, text, op, flag);
  if (!imp) return std::nullopt;
  return result_set({*imp});
}

}  // namespace pipebench
