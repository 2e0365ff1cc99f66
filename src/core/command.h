// SPDX-License-Identifier: Apache-2.0
// Subcommand: one `pipebench X`. Each command owns its options (add_options binds them to members of
// the command object; finish checks and converts them) and its run. main walks one table of them, so
// adding a subcommand is: the command file, its test, its README section, one table line.
#pragma once

#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace pipebench {

class World;

// Words the driver sets aside before CLI11 parses: Google Benchmark flags and what follows "--".
struct CommandExtras {
  std::vector<std::string> benchmark_args;  // --benchmark_* (only where accepts_benchmark_args())
  std::vector<std::string> passthrough;     // after "--" (only where accepts_passthrough())
};

class Subcommand {
 public:
  virtual ~Subcommand() = default;
  [[nodiscard]] virtual std::string name() const = 0;
  [[nodiscard]] virtual std::string summary() const = 0;  // one line of the top-level help
  // Bind this command's flags to members of the command object.
  virtual void add_options(CLI::App& sub) = 0;
  // After CLI11 has parsed: check and convert the flags; throw UsageError naming the flag.
  virtual void finish(const CLI::App& sub, const CommandExtras& extras) = 0;
  [[nodiscard]] virtual bool accepts_benchmark_args() const { return false; }
  [[nodiscard]] virtual bool accepts_passthrough() const { return false; }
  // true: MPI is initialised, every rank's arguments were checked identical, and run() gets the World.
  [[nodiscard]] virtual bool needs_world() const { return false; }
  // Before the World exists (e.g. `run` re-launching itself under mpirun). args: every word after the program.
  virtual void before_world(const std::vector<std::string>& /*args*/) {}
  // Before the World exists, the checks that need no other rank: tcp_rendezvous says the launch is
  // torchrun-style (its ranks meet over TCP, without MPI), where a choice that needs MPI is refused here
  // rather than once every rank has joined. Throws UsageError.
  virtual void check_launch(bool /*tcp_rendezvous*/) const {}
  // world: null unless needs_world(). Returns the exit status.
  [[nodiscard]] virtual int run(const World* world) = 0;
  // A command whose words CLI11 must not see (plan hands them to the Megatron parser): the driver gives
  // it every word after its name instead of add_options/finish, and the top-level help lists it.
  [[nodiscard]] virtual bool takes_raw_words() const { return false; }
  // Returns help text to print instead of running, or "" when the command is ready to run. Throws UsageError.
  [[nodiscard]] virtual std::string parse_raw_words(const std::vector<std::string>& /*words*/) { return {}; }
};

}  // namespace pipebench
