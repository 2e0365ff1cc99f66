// SPDX-License-Identifier: Apache-2.0
// The console text of `pairs`: its first lines (ranks, backend, sizes and the class matrix), one matrix
// of measured bandwidths per direction mode and size (row = sender, column = receiver), and its last
// lines (wrong values, failed points).
#pragma once

#include <cstdint>
#include <map>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "harness/sweep.h"
#include "topology/placement.h"

namespace pipebench {

// What `pairs` measures (nranks ranks on `backend`, "nccl" or "mpi"; gpu_ranks false: host ranks of the MPI
// backend, which have no link classes), named in its first lines. placement (may be null): where the ranks
// ran; with it, the class matrix (nvidia-smi topo -m names) of GPU ranks. For fewer than 2 ranks, the line
// that says there is no pair to measure.
void print_pairs_header(std::ostream& out, int nranks, const std::string& backend, bool gpu_ranks,
                        const std::vector<std::uint64_t>& sizes_bytes, const Placement* placement);

// One matrix: a direction mode at one size (title: "unidirectional send/recv at 4K"), (sender, receiver) ->
// GB/s per direction; a pair that is not in busbw_gbps was not measured. placement (may be null): each cell
// also as a share of its path's theoretical bandwidth, where known.
void print_pair_matrix(std::ostream& out, const std::string& title, int nranks,
                       const std::map<std::pair<int, int>, double>& busbw_gbps, const Placement* placement);

// The wrong values (OK or FAILED) and the failed points, if any.
void print_pairs_verdict(std::ostream& out, const SweepSummary& summary);

}  // namespace pipebench
