// SPDX-License-Identifier: Apache-2.0
// Starting pipebench under mpirun from a plain `pipebench CMD ...` (run, pairs and replay), where no launcher
// started it (launch/launch_env.h, started_by_launcher): where mpirun is, and replacing this process by
// `mpirun -np N` of itself.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace pipebench {

// The first executable `program` on PATH; "" where there is none.
[[nodiscard]] std::string find_in_path(const std::string& program);

// The slots Open MPI gives this node by default: its physical cores (Open MPI counts cores, not hardware
// threads, unless --use-hwthread-cpus), those this process may run on; at least 1.
[[nodiscard]] int physical_cores();

// The words of the relaunch: `mpirun -np ranks [--oversubscribe] self args...`, --oversubscribe where
// ranks exceed `cores` (Open MPI refuses more ranks than slots without it).
[[nodiscard]] std::vector<std::string> mpirun_words(const std::string& mpirun, int ranks, int cores,
                                                    const std::string& self, const std::vector<std::string>& args);

// What the ranks get when the user stops the command started under mpirun: mpirun itself ends the ranks
// of a SIGINT or SIGTERM with SIGTERM (and SIGKILL 1 s later), so a rank could never tell which one the
// user sent. kTerminate: the ranks get that SIGTERM. kGraceful: for a command whose ranks stop at their
// next point (harness/interrupt.h), a SIGINT reaches them as SIGUSR1 and a SIGTERM as SIGUSR2, which
// mpirun passes on unchanged (Open MPI's mpirun(1), "Signal Propagation"); the ranks read them as the
// signal the user sent (kStopSignalsAsUsrVariable is set for them). A second signal is SIGTERM either way.
enum class StopForwarding { kTerminate, kGraceful };
inline constexpr const char* kStopSignalsAsUsrVariable = "PIPEBENCH_STOP_SIGNALS_AS_SIGUSR";

// Runs mpirun_words(mpirun, ranks, physical_cores(), <this executable>, args) (args: every word after the
// program) as a child, passes on SIGINT and SIGTERM as `stop` says, and ends this process with mpirun's
// exit status, or 128 + the signal the user sent (130, 143) where one stopped it. `stopped_line` (given the
// signal): the line to write, after "pipebench: ", where the user stopped it and no rank's own line came
// through (a rank's line as mpirun stops it may be left behind when mpirun ends first). mpirun's standard error
// reaches ours through launch/mpirun_banner_filter.h: after pipebench's error line, Open MPI's banners are
// left out. As root, sets Open MPI's
// documented run-as-root override. Returns only by throwing Error where fork fails.
[[noreturn]] void run_under_mpirun(const std::string& mpirun, int ranks, const std::vector<std::string>& args,
                                   StopForwarding stop = StopForwarding::kTerminate,
                                   const std::function<std::string(int sig)>& stopped_line = {});

}  // namespace pipebench
