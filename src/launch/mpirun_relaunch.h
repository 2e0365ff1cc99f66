// SPDX-License-Identifier: Apache-2.0
// Starting pipebench under mpirun from a plain `pipebench CMD ...` (run, pairs and replay): whether a launcher
// started this process, where mpirun is, and replacing this process by `mpirun -np N` of itself.
#pragma once

#include <string>
#include <vector>

namespace pipebench {

// True under mpirun/srun/PMI/torchrun (Open MPI, PMIx, PMI, an srun step's or torchrun's variables;
// launch/launch_env.h): such a process is not started again under mpirun.
[[nodiscard]] bool started_by_launcher();

// The first executable `program` on PATH; "" where there is none.
[[nodiscard]] std::string find_in_path(const std::string& program);

// The slots Open MPI gives this node by default: its physical cores (Open MPI counts cores, not hardware
// threads, unless --use-hwthread-cpus), those this process may run on; at least 1.
[[nodiscard]] int physical_cores();

// The words of the relaunch: `mpirun -np ranks [--oversubscribe] self args...`, --oversubscribe where
// ranks exceed `cores` (Open MPI refuses more ranks than slots without it).
[[nodiscard]] std::vector<std::string> mpirun_words(const std::string& mpirun, int ranks, int cores,
                                                    const std::string& self, const std::vector<std::string>& args);

// Replaces this process by mpirun_words(mpirun, ranks, physical_cores(), <this executable>, args) (args:
// every word after the program). As root, sets Open MPI's documented run-as-root override. Returns only
// by throwing Error where execv fails.
[[noreturn]] void exec_under_mpirun(const std::string& mpirun, int ranks, const std::vector<std::string>& args);

}  // namespace pipebench
