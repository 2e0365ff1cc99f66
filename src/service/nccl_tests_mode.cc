// SPDX-License-Identifier: Apache-2.0
// nccl-tests binary names and -J's head (format: nccl-tests 2.19.6 src/util.cu jsonOutputInit).
#include "service/nccl_tests_mode.h"

#include <algorithm>
#include <map>
#include <sstream>

#include "collectives/registry.h"
#include "core/version.h"
#include "report/nccl_tests_json_writer.h"
#include "report/nccl_tests_text.h"

namespace pipebench {
namespace {

constexpr const char* kNameFlag = "--nccl-tests-name";

std::string program_name(std::string_view argv0) {
  const auto slash = argv0.find_last_of('/');
  return std::string(slash == std::string_view::npos ? argv0 : argv0.substr(slash + 1));
}

}  // namespace

int nccl_tests_ngpus(const BenchConfig& c, const Backend& backend) {
  // bench runs -t threads' GPUs from one thread (-g x -t); nccl-tests prints -g.
  return backend.kind() == BackendKind::kNccl ? c.gpus_per_process / std::max(1, c.threads) : c.gpus_per_process;
}

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
  std::vector<std::string> words = {"bench", "--op", nccl_tests_binary_op(argv0), kNameFlag, program_name(argv0)};
  for (const std::string& a : args) {
    if (a == "--op") {
      words.emplace_back("--redop");
    } else if (a.rfind("--op=", 0) == 0) {
      words.push_back("--redop=" + a.substr(5));
    } else {
      words.push_back(a);
    }
  }
  return words;
}

std::string nccl_tests_help(std::string_view argv0, const std::string& bench_help) {
  const std::map<std::string, int> defaults = {
      {"-w,", kNcclTestsWarmup}, {"--reps ", kNcclTestsReps}, {"-a,", kNcclTestsAverage}};
  std::istringstream in(bench_help);
  std::string out;
  bool skipping = false;  // the lines of --op's entry
  for (std::string line; std::getline(in, line);) {
    const std::string flag = line.substr(0, line.find_first_not_of(' '));
    const std::string_view rest = std::string_view(line).substr(std::min(line.size(), flag.size()));
    const bool entry = flag.size() == 2 && !rest.empty() && rest.front() == '-';  // "  -x,..." or "  --xy ..."
    if (entry || flag.empty()) skipping = entry && rest.rfind("--op ", 0) == 0;
    if (skipping) continue;
    if (line.rfind("Usage: pipebench bench", 0) == 0) line = "Usage: " + program_name(argv0) + line.substr(22);
    if (entry && rest.rfind("-o,--op_type", 0) == 0) line.replace(flag.size(), 12, "-o,--op,--op_type");
    for (const auto& [name, value] : defaults) {
      if (!entry || rest.rfind(name, 0) != 0) continue;
      const auto eq = line.find('=');
      const auto end = line.find_first_not_of("0123456789", eq + 1);
      if (eq != std::string::npos)
        line.replace(eq + 1, (end == std::string::npos ? line.size() : end) - eq - 1, std::to_string(value));
    }
    out += line + "\n";
  }
  return out;
}

std::vector<std::string> nccl_tests_user_args(const std::vector<std::string>& words) {
  if (words.size() < 5 || words[3] != kNameFlag) return words;
  std::vector<std::string> out = {words[4]};
  out.insert(out.end(), words.begin() + 5, words.end());
  return out;
}

nlohmann::ordered_json nccl_tests_json_head(const BenchConfig& c, const Backend& backend, const SystemInfo& system,
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
  for (const auto& d : system.devices) {
    devices.push_back({{"rank", d.rank},
                       {"group", nccl_tests_group(c.sweep.split, system, d.rank)},
                       {"pid", d.pid},
                       {"hostname", d.host},
                       {"device", d.device},
                       {"device_hex", nccl_tests_bus_id(d.bus_id)},
                       {"device_info", d.model}});
  }
  config["devices"] = std::move(devices);
  return {{"version", 3},
          {"start_time", nccl_tests_time_now()},
          {"args", c.command_line},
          {"env", env},
          {"nccl_version", nccl_version_code(backend.versions())},
          {"config", std::move(config)}};
}

}  // namespace pipebench
