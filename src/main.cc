// SPDX-License-Identifier: Apache-2.0
// pipebench entry point: parse against the command table, check that every rank got the same arguments,
// run the command, and turn exceptions into one line and an exit status (the only place besides each
// measured point that catches them).
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "app/commands.h"
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

// A command that needs no MPI (topo, plan, predict, trace): no World is ever created.
int run_without_world(pipebench::Subcommand& command) {
  try {
    return command.run(nullptr);
  } catch (const pipebench::UsageError& e) {
    std::fprintf(stderr, "pipebench: %s\n", e.what());
    return code(ExitCode::kUsage);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "pipebench: %s\n", e.what());
    return code(ExitCode::kRuntimeError);
  }
}

int run_in_world(pipebench::Subcommand& command, const pipebench::World& world) {
  try {
    return command.run(&world);
  } catch (const pipebench::LocalUsageError& e) {
    std::fprintf(stderr, "pipebench: %s\n", e.what());
    if (world.size() > 1) world.abort(code(ExitCode::kUsage));
    return code(ExitCode::kUsage);
  } catch (const pipebench::UsageError& e) {
    // Raised identically on every rank (from collective checks): rank 0 speaks for all.
    if (world.rank() == 0) std::fprintf(stderr, "pipebench: %s\n", e.what());
    return code(ExitCode::kUsage);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "pipebench: error on %s: %s\n", world.where().c_str(), e.what());
    if (world.size() > 1) world.abort(code(ExitCode::kRuntimeError));
    return code(ExitCode::kRuntimeError);
  }
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  const bool speaker = launcher_rank() == 0;
  const auto table = pipebench::make_command_table();
  pipebench::ParsedLine line;
  try {
    line = pipebench::parse_line(table, args);
  } catch (const pipebench::UsageError& e) {
    if (speaker) std::fprintf(stderr, "pipebench: %s\n", e.what());
    return code(ExitCode::kUsage);
  }
  if (line.kind == pipebench::ParsedLine::Kind::kHelp) {
    if (speaker) std::cout << line.help_text;
    return code(ExitCode::kOk);
  }
  if (line.kind == pipebench::ParsedLine::Kind::kVersion) {
    if (speaker) std::cout << "pipebench " << pipebench::kToolVersion << "\n";
    return code(ExitCode::kOk);
  }
  pipebench::Subcommand& command = *line.command;
  if (!command.needs_world()) return run_without_world(command);
  try {
    command.before_world(args);
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
  return run_in_world(command, *world);
}
