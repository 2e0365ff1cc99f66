// SPDX-License-Identifier: Apache-2.0
// `pipebench run` (and `make run`): the qualification job with defaults. On GPUs: all_reduce,
// all_gather and sendrecv from 8 B to 1 GiB (factor 4) on all local GPUs; without a GPU, the same on
// the MPI backend with host ranks started through mpirun. Results go to a run folder.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "core/command.h"
#include "launch/world.h"

namespace pipebench {

// `pipebench run`: the whole qualification job with defaults.
struct RunOptions {
  std::string out_dir;  // empty: results/runs/<host>-<UTC timestamp>/
  BackendKind backend = BackendKind::kAuto;
  int gpus_per_process = 0;           // 0: every visible GPU (or --gpus) for a single process, else 1 per rank
  std::vector<std::string> gpu_list;  // --gpus: indices, UUIDs or bus ids (launch/gpu_assignment.h)
  std::uint64_t min_bytes = 8;
  std::uint64_t max_bytes = 1ull << 30;
  std::uint64_t factor = 4;
  int host_ranks = 4;  // ranks of the MPI fallback without GPUs
  double point_budget_s = 1.0;
  double timeout_s = -1;  // -T: <0 from each point's size (harness/watchdog.h), 0 off
  std::vector<std::string> benchmark_args;
  std::vector<std::string> megatron_args;  // after "--": the model to plan and predict (default: a preset)
  double tflops = 0;                       // compute rate for the prediction without a GPU (0: 100, assumed)
  std::vector<std::string> profiles;       // --profile: the job's per-rank profiles (files, folders expanded)
  std::string profile_schedule;            // --profile-schedule: the schedule they ran (default: the one that matches)
  bool plan = true;                        // --no-plan: the sweep only
  bool replay = true;                      // --no-replay: no replay of the plan
  int replay_iterations = 3;               // timed iterations per schedule (after one warm-up)
  std::string rules_file;                  // --rules: the report's rules (empty: the default rules)
  std::string baseline;                    // --baseline: results file or run folder to compare against
  bool quiet = false;                      // --quiet: no progress lines
};

// `pipebench run [flags] [-- <Megatron-LM arguments>]`.
class RunCommand final : public Subcommand {
 public:
  [[nodiscard]] std::string name() const override { return "run"; }
  [[nodiscard]] std::string summary() const override;
  void add_options(CLI::App& sub) override;
  void finish(const CLI::App& sub, const CommandExtras& extras) override;
  [[nodiscard]] bool accepts_benchmark_args() const override { return true; }
  [[nodiscard]] bool accepts_passthrough() const override { return true; }
  [[nodiscard]] bool needs_world() const override { return true; }
  // Before MPI is initialised: when no GPU is visible and this process was not started by mpirun, replaces
  // it with `mpirun -np <host_ranks> <this program> <args>` (saying so on the first line). Returns only
  // when no re-launch is needed or possible.
  void before_world(const std::vector<std::string>& args) override;
  void check_launch(bool tcp_rendezvous) const override;
  [[nodiscard]] int run(const World* world) override;
  // After finish: the job the flags describe.
  [[nodiscard]] const RunOptions& options() const { return options_; }

 private:
  // --profile and --profile-schedule against the other flags, and the profiles as regular files (folders
  // expanded), before anything is measured.
  void check_profile_options();
  RunOptions options_;
  std::string backend_ = "auto", min_bytes_ = "8", max_bytes_ = "1G", gpus_;
  bool no_plan_ = false, no_replay_ = false;
};

}  // namespace pipebench
