// SPDX-License-Identifier: Apache-2.0
// bench's first lines: what runs (the backend, processes and ranks), how each point is measured, the
// devices; in nccl-tests' dialect when started as an nccl-tests binary (nccl-tests 2.19.6 src/common.cu
// run(), src/util.cu writeDeviceReport).
#pragma once

#include <cstdint>
#include <map>
#include <ostream>
#include <string>

#include "harness/measure_settings.h"
#include "harness/sweep_spec.h"
#include "io/results_io.h"

namespace pipebench {

struct BenchPreamble {
  const MeasureSettings& measure;
  const SweepSpec& sweep;
  const SystemInfo& system;                     // the results' system block: its processes and devices
  std::string backend;                          // "nccl", "mpi"
  std::map<std::string, std::string> versions;  // the backend's libraries
  bool gpu_ranks = true;                        // false: host ranks (the MPI backend)
  int nranks = 0;
  int ranks_per_process = 1;  // -g (times -t on the nccl backend)
  std::string link_class;     // of the ranks the ops run on (their worst pair); empty: not known
  // Started as an nccl-tests binary: its name, and what its settings line shows besides the above.
  std::string nccl_tests_program;
  int threads = 1;          // -t
  int nccl_tests_gpus = 1;  // -g as nccl-tests counts it
  std::uint64_t step_factor = 1;
  std::uint64_t step_bytes = 0;
  bool per_iter_timing = false;  // -I
};

// bench's preamble, or nccl-tests' line for line when nccl_tests_program is set.
void print_bench_preamble(std::ostream& out, const BenchPreamble& p);

}  // namespace pipebench
