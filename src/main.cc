// SPDX-License-Identifier: Apache-2.0
// pipebench entry point: parse, check that every rank got the same arguments, dispatch, and turn
// exceptions into one line and an exit status (the only place besides each measured point that
// catches them).
#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "app/bench_command.h"
#include "app/pairs_command.h"
#include "app/predict_command.h"
#include "app/report_command.h"
#include "app/run_command.h"
#include "app/topo_command.h"
#include "app/trace_command.h"
#include "cli/cli.h"
#include "core/error.h"
#include "core/version.h"
#include "launch/world.h"

namespace {

using pipebench::ExitCode;

// Before MPI is up: this process's rank as the launcher set it (0 when not launched).
int launcher_rank() {
  for (const char* name : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK"}) {
    if (const char* v = std::getenv(name)) return std::atoi(v);
  }
  return 0;
}

int code(ExitCode c) { return static_cast<int>(c); }

// Every rank must run the same command; otherwise say which rank differs, from rank 0.
bool same_arguments_everywhere(const pipebench::World& world, const std::vector<std::string>& args) {
  std::string joined;
  for (const auto& a : args) joined += (joined.empty() ? "" : "\x1f") + a;
  const auto all = world.all_gather(joined);
  for (std::size_t r = 1; r < all.size(); ++r) {
    if (all[r] == all[0]) continue;
    if (world.rank() == 0) {
      auto show = [](std::string s) {
        for (auto& ch : s) ch = ch == '\x1f' ? ' ' : ch;
        return s;
      };
      std::fprintf(stderr, "pipebench: arguments differ between ranks: rank %zu got '%s' but rank 0 got '%s'\n", r,
                   show(all[r]).c_str(), show(all[0]).c_str());
    }
    return false;
  }
  return true;
}

// Until the command table lands: `pipebench report` through its Subcommand.
int run_report(const std::vector<std::string>& args) {
  auto command = pipebench::make_report_command();
  CLI::App app{"pipebench report"};
  app.name("pipebench report");
  command->add_options(app);
  try {
    std::vector<std::string> rest(args.rbegin(), args.rend() - 1);  // CLI11 parses a reversed vector
    app.parse(rest);
    command->finish(app, {});
    return command->run(nullptr);
  } catch (const CLI::CallForHelp&) {
    std::cout << app.help();
    return code(ExitCode::kOk);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "pipebench report: %s\n", e.what());
    return code(ExitCode::kUsage);
  } catch (const pipebench::UsageError& e) {
    std::fprintf(stderr, "pipebench: %s\n", e.what());
    return code(ExitCode::kUsage);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "pipebench: %s\n", e.what());
    return code(ExitCode::kRuntimeError);
  }
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  if (!args.empty() && args[0] == "report") return run_report(args);
  const bool speaker = launcher_rank() == 0;
  pipebench::Command cmd;
  try {
    cmd = pipebench::parse_command_line(args);
  } catch (const pipebench::UsageError& e) {
    if (speaker) std::fprintf(stderr, "pipebench: %s\n", e.what());
    return code(ExitCode::kUsage);
  }
  if (cmd.kind == pipebench::Command::Kind::kHelp) {
    if (speaker) std::cout << cmd.help_text;
    return code(ExitCode::kOk);
  }
  if (cmd.kind == pipebench::Command::Kind::kVersion) {
    if (speaker) std::cout << "pipebench " << pipebench::kToolVersion << "\n";
    return code(ExitCode::kOk);
  }
  if (cmd.kind == pipebench::Command::Kind::kTopo || cmd.kind == pipebench::Command::Kind::kPlan ||
      cmd.kind == pipebench::Command::Kind::kPredict ||
      cmd.kind == pipebench::Command::Kind::kTrace) {  // no MPI needed
    try {
      if (cmd.kind == pipebench::Command::Kind::kPlan) return pipebench::run_plan_command(cmd.plan);
      if (cmd.kind == pipebench::Command::Kind::kPredict) return pipebench::run_predict_command(cmd.predict);
      if (cmd.kind == pipebench::Command::Kind::kTrace) return pipebench::run_trace_command(cmd.trace);
      return pipebench::run_topo_command(cmd.topo);
    } catch (const pipebench::UsageError& e) {
      std::fprintf(stderr, "pipebench: %s\n", e.what());
      return code(ExitCode::kUsage);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "pipebench: %s\n", e.what());
      return code(ExitCode::kRuntimeError);
    }
  }
  try {
    if (cmd.kind == pipebench::Command::Kind::kRun) pipebench::relaunch_under_mpirun_if_needed(cmd.run, args);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "pipebench: %s\n", e.what());
    return code(ExitCode::kRuntimeError);
  }

  std::unique_ptr<pipebench::World> world;
  try {
    world = pipebench::World::create(&argc, &argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "pipebench: %s\n", e.what());
    return code(ExitCode::kRuntimeError);
  }
  if (!same_arguments_everywhere(*world, args)) return code(ExitCode::kUsage);
  try {
    switch (cmd.kind) {
      case pipebench::Command::Kind::kBench:
        return pipebench::run_bench_command(cmd.bench, *world);
      case pipebench::Command::Kind::kRun:
        return pipebench::run_run_command(cmd.run, *world);
      case pipebench::Command::Kind::kPairs:
        return pipebench::run_pairs_command(cmd.pairs, *world);
      default:
        return code(ExitCode::kOk);
    }
  } catch (const pipebench::LocalUsageError& e) {
    std::fprintf(stderr, "pipebench: %s\n", e.what());
    if (world->size() > 1) world->abort(code(ExitCode::kUsage));
    return code(ExitCode::kUsage);
  } catch (const pipebench::UsageError& e) {
    // Raised identically on every rank (from collective checks): rank 0 speaks for all.
    if (world->rank() == 0) std::fprintf(stderr, "pipebench: %s\n", e.what());
    return code(ExitCode::kUsage);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "pipebench: error on %s: %s\n", world->where().c_str(), e.what());
    if (world->size() > 1) world->abort(code(ExitCode::kRuntimeError));
    return code(ExitCode::kRuntimeError);
  }
}
