// SPDX-License-Identifier: Apache-2.0
// BenchConfig: the settings of `pipebench bench`, built by the CLI (app/bench_command.h). It holds the
// parts the harness reads (the sweep, how points are measured), the outputs, and bench's own options:
// the backend and GPUs, nccl-tests' text and -J head, --plan. The harness is handed only the first two,
// so it cannot depend on what only bench means.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "harness/measure_settings.h"
#include "harness/sweep_spec.h"

namespace pipebench {

// The files bench writes its records to. Apart from the sweep and its measurement (harness/), because the
// writers are app's and report's: the harness hands records to a RecordSink and never learns a path.
struct BenchOutputs {
  std::string json_path;             // --json
  std::string csv_path;              // --csv
  std::string nccl_tests_json_path;  // -J: nccl-tests' JSON (one op)
  std::string jsonl_path;            // --jsonl: one JSON object per record, appended
  std::string prometheus_path;       // --prometheus: node-exporter text file, replaced after every record
};

struct BenchConfig {
  SweepSpec sweep;
  MeasureSettings measure;
  BenchOutputs outputs;
  BackendKind backend = BackendKind::kAuto;
  int gpus_per_process = 1;           // -g
  std::vector<std::string> gpu_list;  // --gpus: indices, UUIDs or bus ids (launch/gpu_assignment.h)
  int threads = 1;                    // -t: nccl-tests threads per process; the GPUs of -t x -g run from one thread
  int cycles = 1;                     // -N: sweeps; 0 = until interrupted
  bool memory_report = false;         // -M
  bool parallel_init = false;         // -p
  bool per_iter_timing = false;       // -I: one sample per iteration (measure.reps holds -n)
  // Started as an nccl-tests binary (all_reduce_perf): its name; the output is nccl-tests' text only.
  std::string nccl_tests_program;
  std::vector<std::string> command_line;  // the words as typed, argv[0] first (-J's "args")
  std::uint64_t step_factor = 1;          // -f as given (-J's config)
  std::uint64_t step_bytes = 0;           // -i as given, when -f is 1
  std::string plan_path;                  // bench --plan: time the distinct messages of this plan instead
  std::string plan_schedule;              // --schedule: only this schedule of the plan (empty: all)
  // bench --plan and run: also what a pass pays beyond its bytes on rank 0's GPU (service/plan_pass_costs.h);
  // replay's table leaves it out, as its prediction prices the replay's own compute.
  bool plan_pass_costs = false;
};

}  // namespace pipebench
