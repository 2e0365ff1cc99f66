// SPDX-License-Identifier: Apache-2.0
// `pipebench pairs`: every ordered GPU pair (or --pairs), one pair at a time, unidirectional and
// bidirectional send/recv at each size, printed as matrices beside the class matrix, each cell also as
// a fraction of the path's theoretical bandwidth. Records go to the results JSON with the pair's class.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "collectives/op.h"
#include "core/command.h"
#include "launch/world.h"
#include "service/bench_config.h"

namespace pipebench {

// `pipebench pairs`: every ordered rank pair, one at a time, one-way and both ways.
struct PairsOptions {
  BackendKind backend = BackendKind::kAuto;
  int gpus_per_process = 0;           // 0: every visible GPU (or --gpus) for a single process, else 1 per rank
  std::vector<std::string> gpu_list;  // --gpus: indices, UUIDs or bus ids (launch/gpu_assignment.h)
  std::vector<std::uint64_t> sizes_bytes = {256u << 10, 64u << 20};
  std::vector<RankPair> pairs;  // empty: every ordered pair
  int iters = 20, warmup = 5, reps = 10, checks = 1;
  double timeout_s = -1;  // -T: <0 from each point's size (harness/watchdog.h), 0 off
  bool quiet = false;     // --quiet: no progress lines
  BenchOutputs outputs;   // --json, --csv, --jsonl, --prometheus (service/record_outputs.h)
  int host_ranks = 4;     // --host-ranks: ranks of the MPI fallback started under mpirun without GPUs
};

// The same on a backend already built. A point that fails is reported (its matrix cell stays '.'),
// counted under "Failed points" and makes the exit status 1.
[[nodiscard]] int run_pairs_on(Backend& backend, const PairsOptions& options, const World& world);

[[nodiscard]] std::unique_ptr<Subcommand> make_pairs_command();

}  // namespace pipebench
