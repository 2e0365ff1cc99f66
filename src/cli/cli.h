// SPDX-License-Identifier: Apache-2.0
// The command line: a list of words in, a parsed command out, or a UsageError naming the flag.
// Pure (no I/O), so every bad-input rule is unit-tested.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "backend/backend_factory.h"
#include "harness/bench_config.h"
#include "app/plan_command.h"
#include "app/predict_command.h"
#include "app/trace_command.h"
#include "topology/discovery.h"

namespace pipebench {

// `pipebench run`: the whole qualification job with defaults.
struct RunOptions {
  std::string out_dir;            // empty: results/runs/<host>-<UTC timestamp>/
  BackendKind backend = BackendKind::kAuto;
  int gpus_per_process = 0;       // 0: every visible GPU for a single process, else 1 per rank
  std::uint64_t min_bytes = 8;
  std::uint64_t max_bytes = 1ull << 30;
  std::uint64_t factor = 4;
  int host_ranks = 4;             // ranks of the MPI fallback without GPUs
  double point_budget_s = 1.0;
  double timeout_s = 0;
  std::vector<std::string> benchmark_args;
  std::vector<std::string> megatron_args;  // after "--": the model to plan and predict (default: a preset)
  double tflops = 0;                        // compute rate for the prediction without a GPU (0: 100, assumed)
  bool plan = true;                         // --no-plan: the sweep only
};

// `pipebench topo`.
struct TopoOptions {
  DiscoveryOptions discovery;
  std::string format = "text";  // text, json, dot
  std::string export_xml;       // write this machine's hwloc XML here
};

// `pipebench pairs`: every ordered rank pair, one at a time, one-way and both ways.
struct PairsOptions {
  BackendKind backend = BackendKind::kAuto;
  int gpus_per_process = 0;  // 0: every visible GPU for a single process, else 1 per rank
  std::vector<std::uint64_t> sizes_bytes = {256u << 10, 64u << 20};
  std::vector<RankPair> pairs;  // empty: every ordered pair
  int iters = 20, warmup = 5, reps = 10, checks = 1;
  double timeout_s = 0;
  std::string json_path, csv_path;
};

struct Command {
  enum class Kind { kHelp, kVersion, kBench, kRun, kTopo, kPairs, kPlan, kPredict, kTrace };
  Kind kind = Kind::kHelp;
  std::string help_text;  // for kHelp
  BenchConfig bench;
  RunOptions run;
  TopoOptions topo;
  PairsOptions pairs;
  PlanOptions plan;
  PredictOptions predict;
  TraceCommandOptions trace;
};

// args: the words after the program name. Throws UsageError.
[[nodiscard]] Command parse_command_line(const std::vector<std::string>& args);

// Comma-separated rank list "0,3,5" (sorted, unique). Throws UsageError naming flag.
[[nodiscard]] std::vector<int> parse_rank_list(const std::string& flag, const std::string& text);

}  // namespace pipebench
