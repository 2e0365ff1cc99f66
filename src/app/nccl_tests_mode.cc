// SPDX-License-Identifier: Apache-2.0
// nccl-tests binary names and nccl-tests' preamble (formats: nccl-tests 2.19.6 src/util.cu writeDeviceReport,
// jsonOutputInit).
#include "app/nccl_tests_mode.h"

#include <algorithm>
#include <cstdio>

#include "collectives/registry.h"
#include "core/split_expr.h"
#include "core/version.h"
#include "report/nccl_tests_json_writer.h"
#include "report/nccl_tests_text.h"

namespace pipebench {
namespace {

constexpr const char* kNameFlag = "--nccl-tests-name";

// nccl-tests' NCCL_VERSION_CODE of "2.28.3": 22803 (nccl.h, NCCL >= 2.9); 0 without NCCL.
int nccl_version_code(const Backend& backend) {
  const auto v = backend.versions();
  const auto it = v.find("nccl");
  int major = 0, minor = 0, patch = 0;
  if (it == v.end() || std::sscanf(it->second.c_str(), "%d.%d.%d", &major, &minor, &patch) != 3) return 0;
  return major * 10000 + minor * 100 + patch;
}

int nccl_tests_ngpus(const BenchConfig& c, const Backend& backend) {
  // bench runs -t threads' GPUs from one thread (-g x -t); nccl-tests prints -g.
  return backend.kind() == BackendKind::kNccl ? c.gpus_per_process / std::max(1, c.threads) : c.gpus_per_process;
}

int split_color(const BenchConfig& c, int process) {
  return c.sweep.split ? static_cast<int>(c.sweep.split->color(process)) : 0;
}

int ranks_per_process(const nlohmann::json& system) {
  const int procs = std::max(1, system["processes"].get<int>());
  return std::max<int>(1, static_cast<int>(system["devices"].size()) / procs);
}

}  // namespace

std::vector<std::string> nccl_tests_binaries() {
  std::vector<std::string> names;
  for (const Op* op : OpRegistry::instance().ops()) {
    if (!op->aliases().nccl_tests.empty()) names.emplace_back(op->aliases().nccl_tests);
  }
  return names;
}

std::string nccl_tests_binary_op(std::string_view argv0) {
  const auto slash = argv0.find_last_of('/');
  const std::string_view base = slash == std::string_view::npos ? argv0 : argv0.substr(slash + 1);
  const Op* op = OpRegistry::instance().resolve(OpAlias::kNcclTests, base);
  return op ? std::string(op->name()) : "";
}

std::vector<std::string> nccl_tests_words(std::string_view argv0, const std::vector<std::string>& args) {
  const auto slash = argv0.find_last_of('/');
  const std::string program(slash == std::string_view::npos ? argv0 : argv0.substr(slash + 1));
  std::vector<std::string> words = {"bench", "--op", nccl_tests_binary_op(argv0), kNameFlag, program};
  words.insert(words.end(), args.begin(), args.end());
  return words;
}

std::vector<std::string> nccl_tests_user_args(const std::vector<std::string>& words) {
  if (words.size() < 5 || words[3] != kNameFlag) return words;
  std::vector<std::string> out = {words[4]};
  out.insert(out.end(), words.begin() + 5, words.end());
  return out;
}

std::string nccl_tests_device_lines(const BenchConfig& c, const nlohmann::json& system) {
  const int per_process = ranks_per_process(system);
  std::string out;
  for (const auto& d : system["devices"]) {
    const int rank = d["rank"].get<int>();
    out += nccl_tests_device_line(rank, split_color(c, rank / per_process), d["pid"].get<long>(),
                                  d["host"].get<std::string>(), d["device"].get<int>(), d["bus_id"].get<std::string>(),
                                  d["model"].get<std::string>());
  }
  return out;
}

void print_nccl_tests_preamble(std::ostream& out, const BenchConfig& c, const Backend& backend,
                               const nlohmann::json& system) {
  const int code = nccl_version_code(backend);
  const bool factor = c.step_factor > 1;
  char buf[512];
  // nccl-tests prints its own version; the version here is the format's, then who wrote it.
  std::snprintf(buf, sizeof buf, "# nccl-tests version %s nccl-headers=%d nccl-library=%d (pipebench %s, %s)\n",
                kNcclTestsFormatVersion, code, code, kToolVersion, std::string(backend.name()).c_str());
  out << buf << "# Collective test starting: " << c.nccl_tests_program << "\n";
  std::snprintf(buf, sizeof buf,
                "# nThread %d nGpus %d minBytes %llu maxBytes %llu step: %llu(%s) warmup iters: %d iters: %d agg "
                "iters: %d validation: %d graph: %d unalign: %d\n",
                c.threads, nccl_tests_ngpus(c, backend),
                static_cast<unsigned long long>(c.sweep.sizes_bytes.empty() ? 0 : c.sweep.sizes_bytes.front()),
                static_cast<unsigned long long>(c.sweep.sizes_bytes.empty() ? 0 : c.sweep.sizes_bytes.back()),
                static_cast<unsigned long long>(factor ? c.step_factor : c.step_bytes), factor ? "factor" : "bytes",
                c.measure.warmup, c.per_iter_timing ? 1 : c.measure.iters, c.measure.agg, c.measure.checks,
                c.measure.graph ? 1 : 0, c.measure.unalign_elems);
  out << buf;
  if (c.measure.blocking == 1) out << "# Blocking Enabled: wait and barrier after each inner iteration (-m) \n";
  if (c.measure.blocking == 2) out << "# Blocking Enabled: wait after each inner iteration (-m), no barrier \n";
  if (c.measure.blocking == 3) {
    out << "# Blocking Enabled: wait and barrier after each outer iteration (-n); time excludes barrier \n";
  }
  out << "#\n# Using devices\n" << nccl_tests_device_lines(c, system);
  out.flush();
}

nlohmann::ordered_json nccl_tests_json_head(const BenchConfig& c, const Backend& backend, const nlohmann::json& system,
                                            const World& world) {
  using json = nlohmann::ordered_json;
  json env = json::array();
  for (const auto& [k, v] : world.launch_environment()) env.push_back(k + "=" + v);
  json config = {{"nthreads", c.threads},
                 {"ngpus", nccl_tests_ngpus(c, backend)},
                 {"minimum_bytes", c.sweep.sizes_bytes.empty() ? 0 : c.sweep.sizes_bytes.front()},
                 {"maximum_bytes", c.sweep.sizes_bytes.empty() ? 0 : c.sweep.sizes_bytes.back()}};
  if (c.step_factor > 1) {
    config["step_factor"] = c.step_factor;
  } else {
    config["step_bytes"] = c.step_bytes;
  }
  config["warmup_iters"] = c.measure.warmup;
  config["iterations"] = c.per_iter_timing ? c.measure.reps : c.measure.iters;
  config["aggregated_iterations"] = c.measure.agg;
  config["validation"] = c.measure.checks;
  config["graph"] = c.measure.graph ? 1 : 0;
  config["blocking_collectives"] = c.measure.blocking ? "true" : "false";  // nccl-tests writes booleans as strings
  config["per_iter_timing"] = c.per_iter_timing ? "true" : "false";
  config["per_iter_skip"] = c.measure.per_iter_skip;
  config["parallel_init"] = c.parallel_init ? "true" : "false";
  json devices = json::array();
  const int per_process = ranks_per_process(system);
  for (const auto& d : system["devices"]) {
    const int rank = d["rank"].get<int>();
    devices.push_back({{"rank", rank},
                       {"group", split_color(c, rank / per_process)},
                       {"pid", d["pid"].get<long>()},
                       {"hostname", d["host"].get<std::string>()},
                       {"device", d["device"].get<int>()},
                       {"device_hex", nccl_tests_bus_id(d["bus_id"].get<std::string>())},
                       {"device_info", d["model"].get<std::string>()}});
  }
  config["devices"] = std::move(devices);
  return {{"version", 3}, {"start_time", nccl_tests_time_now()},        {"args", c.command_line},
          {"env", env},   {"nccl_version", nccl_version_code(backend)}, {"config", std::move(config)}};
}

}  // namespace pipebench
