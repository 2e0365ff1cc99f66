// SPDX-License-Identifier: Apache-2.0
// `pipebench bench` and the sweep machinery `pipebench run` reuses.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "app/bench_config.h"
#include "backend/backend.h"
#include "core/command.h"
#include "harness/record.h"
#include "harness/sweep.h"
#include "launch/world.h"

namespace pipebench {

// Checks the config against the backend (ranks in range, -G support, memory) before anything runs.
// Collective. Throws UsageError.
void validate_for_backend(const BenchConfig& config, const Backend& backend, const World& world);

// Runs the sweep on a backend already built and validated (validate_for_backend), writes the requested files.
// Returns the exit status. On rank 0, `collected` (if given) receives every record.
[[nodiscard]] int run_bench_on(Backend& backend, const BenchConfig& config, const World& world,
                               std::vector<ResultRecord>* collected = nullptr);

// Exit status of a finished sweep: 3 when any value was wrong, 1 when a point failed, else 0.
[[nodiscard]] int exit_status(const SweepSummary& s);
// The same with nccl-tests' check: 7 when an op's average bus bandwidth fell below NCCL_TESTS_MIN_BW
// (x 0.9); started as an nccl-tests binary, 7 for wrong data too (nccl-tests' testNumResults).
[[nodiscard]] int exit_status(const SweepSummary& s, bool below_min_busbw, bool nccl_tests_binary);

// Of a sweep stopped by SIGINT/SIGTERM (s.interrupted_by): rank 0 says so on stderr with the points
// measured and the files that hold them; 128 + the signal (130, 143).
[[nodiscard]] int interrupted_status(const SweepSummary& s, const BenchConfig& config, const World& world);

// The "config" block of a results file.
[[nodiscard]] nlohmann::json bench_config_json(const BenchConfig& config);

// `pipebench bench`: its flags (nccl-tests letters where they overlap) and its run.
class BenchCommand final : public Subcommand {
 public:
  BenchCommand();
  ~BenchCommand() override;
  BenchCommand(const BenchCommand&) = delete;
  BenchCommand& operator=(const BenchCommand&) = delete;
  [[nodiscard]] std::string name() const override { return "bench"; }
  [[nodiscard]] std::string summary() const override;
  void add_options(CLI::App& sub) override;
  void finish(const CLI::App& sub, const CommandExtras& extras) override;
  [[nodiscard]] bool accepts_benchmark_args() const override { return true; }
  [[nodiscard]] bool needs_world() const override { return true; }
  // Keeps the words as typed (-J writes them as nccl-tests' "args").
  void before_world(const std::vector<std::string>& args) override;
  void check_launch(bool tcp_rendezvous) const override;
  [[nodiscard]] int run(const World* world) override;
  // After finish: the sweep the flags describe.
  [[nodiscard]] const BenchConfig& config() const { return config_; }

 private:
  struct Text;  // the flags as typed
  std::unique_ptr<Text> text_;
  BenchConfig config_;
};

}  // namespace pipebench
