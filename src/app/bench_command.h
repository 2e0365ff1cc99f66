// SPDX-License-Identifier: Apache-2.0
// `pipebench bench` (its sweep: service/bench_sweep.h).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/command.h"
#include "launch/world.h"
#include "service/bench_config.h"

namespace pipebench {

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
