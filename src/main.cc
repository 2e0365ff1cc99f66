// SPDX-License-Identifier: Apache-2.0
// pipebench entry point: parse against the command table on every rank, agree that every rank parsed and
// got the same arguments (naming the rank that did not), run the command, and turn exceptions into one
// line and an exit status (the only place besides each measured point that catches them).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/commands.h"
#include "cli/cli.h"
#include "core/error.h"
#include "core/terminal_text.h"
#include "core/version.h"
#include "launch/launch_env.h"
#include "launch/tcp_world.h"
#include "launch/world.h"
#include "service/nccl_tests_mode.h"

namespace {

using pipebench::ExitCode;

// The launch as the launcher's variables describe it, read before MPI is up (a singleton MPI_Init sets
// OMPI_COMM_WORLD_* variables of its own, and a re-launch under mpirun would hide a bad value). A bad value
// is kept in `error` and named once the command is known to need a world.
struct Launch {
  std::optional<pipebench::LaunchEnv> env;
  std::string error;
  int rank() const { return env ? env->rank : 0; }
  int size() const { return env ? std::max(1, env->size) : 1; }
};

Launch launch_of_this_process() {
  Launch launch;
  try {
    launch.env = pipebench::launch_from_env();
  } catch (const pipebench::UsageError& e) {
    launch.error = pipebench::one_line(e.what());
  }
  return launch;
}

// The command the first word names, parsed or not.
const pipebench::Subcommand* named_command(const pipebench::CommandTable& table, const std::vector<std::string>& args) {
  if (args.empty()) return nullptr;
  for (const auto& c : table) {
    if (c->name() == args[0]) return c.get();
  }
  return nullptr;
}

int code(ExitCode c) { return static_cast<int>(c); }

const char* environment_variable(const char* name) { return std::getenv(name); }

// A usage error found before any world exists: each rank that has it says so, naming itself when it is not
// rank 0.
int alone_usage_error(const Launch& launch, const std::string& message) {
  const std::string who = launch.rank() == 0 ? "" : "rank " + std::to_string(launch.rank()) + ": ";
  std::fprintf(stderr, "pipebench: %s%s\n", who.c_str(), pipebench::one_line(message).c_str());
  return code(ExitCode::kUsage);
}

// A process started as one of N ranks (mpirun, srun, torchrun) must see a world of N: one line and false
// otherwise (a world of 1 would measure N separate single-rank jobs, NVIDIA/nccl-tests#213).
bool launch_matches_world(const std::optional<pipebench::LaunchEnv>& launch, const pipebench::World& world) {
  if (!launch) return true;
  const std::string mismatch = pipebench::launch_world_mismatch(*launch, world.size());
  if (mismatch.empty()) return true;
  std::fprintf(stderr, "pipebench: %s\n", mismatch.c_str());
  return false;
}

// Every rank parsed its arguments. Otherwise rank 0 prints one line: the message of the lowest rank that
// failed, naming it when not every rank failed alike; every rank then returns false.
bool parsed_everywhere(const pipebench::World& world, const std::string& parse_error) {
  const auto all = world.all_gather(parse_error);
  std::vector<std::size_t> failed;
  for (std::size_t r = 0; r < all.size(); ++r) {
    if (!all[r].empty()) failed.push_back(r);
  }
  if (failed.empty()) return true;
  if (world.rank() == 0) {
    const bool alike = failed.size() == all.size() &&
                       std::all_of(all.begin(), all.end(), [&](const std::string& e) { return e == all[0]; });
    if (alike) {
      std::fprintf(stderr, "pipebench: %s\n", all[0].c_str());
    } else {
      std::string ranks;
      for (std::size_t r : failed) ranks += (ranks.empty() ? "" : ",") + std::to_string(r);
      std::fprintf(stderr, "pipebench: rank %zu: %s (the arguments of rank%s %s do not parse; nothing ran)\n",
                   failed[0], all[failed[0]].c_str(), failed.size() == 1 ? "" : "s", ranks.c_str());
    }
  }
  return false;
}

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
    std::fprintf(stderr, "pipebench: %s\n", pipebench::one_line(e.what()).c_str());
    return code(ExitCode::kUsage);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "pipebench: %s\n", pipebench::one_line(e.what()).c_str());
    return code(ExitCode::kRuntimeError);
  }
}

int run_in_world(pipebench::Subcommand& command, const pipebench::World& world) {
  try {
    return command.run(&world);
  } catch (const pipebench::LocalUsageError& e) {
    std::fprintf(stderr, "pipebench: %s\n", pipebench::one_line(e.what()).c_str());
    if (world.size() > 1) world.abort(code(ExitCode::kUsage));
    return code(ExitCode::kUsage);
  } catch (const pipebench::UsageError& e) {
    // Raised identically on every rank (from collective checks): rank 0 speaks for all.
    if (world.rank() == 0) std::fprintf(stderr, "pipebench: %s\n", pipebench::one_line(e.what()).c_str());
    return code(ExitCode::kUsage);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "pipebench: error on %s: %s\n", world.where().c_str(), pipebench::one_line(e.what()).c_str());
    if (world.size() > 1) world.abort(code(ExitCode::kRuntimeError));
    return code(ExitCode::kRuntimeError);
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  // Started as an nccl-tests binary (a link named all_reduce_perf, ...): that binary's bench.
  const bool nccl_tests = !pipebench::nccl_tests_binary_op(argv[0]).empty();
  if (nccl_tests) args = pipebench::nccl_tests_words(argv[0], args);
  const Launch launch = launch_of_this_process();
  const bool speaker = launch.rank() == 0;
  const auto table = pipebench::make_command_table();
  pipebench::ParsedLine line;
  std::string parse_error;
  try {
    line = pipebench::parse_line(table, args);
  } catch (const pipebench::UsageError& e) {
    parse_error = e.what();
  }
  // What needs no other rank, for this launch (a torchrun-style one has no MPI for --backend mpi).
  const bool tcp = pipebench::tcp_rendezvous_launch(environment_variable);
  if (parse_error.empty() && line.kind == pipebench::ParsedLine::Kind::kCommand) {
    try {
      line.command->check_launch(tcp);
    } catch (const pipebench::UsageError& e) {
      parse_error = e.what();
    }
  }
  // Under mpirun a rank whose words fail to parse still joins the world when its command would, so that
  // every rank agrees before anything runs (the others would wait for it in MPI_Init or a collective) and
  // rank 0 names it. Under a torchrun-style launch rank 0 says its own at once: its rendezvous would first
  // wait for every rank to join (a minute by default), and torchrun stops the other ranks once one exits.
  const bool failed = !parse_error.empty();
  const pipebench::Subcommand* named = failed ? named_command(table, args) : line.command;  // null: help, version
  if (failed && !(named && named->needs_world() && launch.size() > 1 && !(tcp && speaker)))
    return alone_usage_error(launch, parse_error);
  if (!failed && line.kind == pipebench::ParsedLine::Kind::kHelp) {
    if (nccl_tests) line.help_text = pipebench::nccl_tests_help(argv[0], line.help_text);
    if (speaker) std::cout << line.help_text;
    return code(ExitCode::kOk);
  }
  if (!failed && line.kind == pipebench::ParsedLine::Kind::kVersion) {
    if (speaker) std::cout << "pipebench " << pipebench::kToolVersion << "\n";
    return code(ExitCode::kOk);
  }
  if (!failed && !line.command->needs_world()) return run_without_world(*line.command);
  if (!launch.error.empty()) {
    std::fprintf(stderr, "pipebench: %s\n", launch.error.c_str());
    return code(ExitCode::kUsage);
  }
  if (!failed) {
    try {
      line.command->before_world(args);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "pipebench: %s\n", pipebench::one_line(e.what()).c_str());
      return code(ExitCode::kRuntimeError);
    }
  }
  std::unique_ptr<pipebench::World> world;
  try {
    world = pipebench::World::create(&argc, &argv);
  } catch (const pipebench::UsageError& e) {  // a bad MASTER_ADDR/MASTER_PORT of a torchrun-style launch
    std::fprintf(stderr, "pipebench: %s\n", pipebench::one_line(e.what()).c_str());
    return code(ExitCode::kUsage);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "pipebench: %s\n", pipebench::one_line(e.what()).c_str());
    return code(ExitCode::kRuntimeError);
  }
  if (!launch_matches_world(launch.env, *world)) return code(ExitCode::kUsage);
  if (!parsed_everywhere(*world, parse_error)) return code(ExitCode::kUsage);
  if (!same_arguments_everywhere(*world, args)) return code(ExitCode::kUsage);
  return run_in_world(*line.command, *world);
}
