// SPDX-License-Identifier: Apache-2.0
// ResultRecord: one measured point (op, type, reduction, size, placement), as reporters receive it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/rank_pair.h"
#include "core/stats.h"

namespace pipebench {

struct ResultRecord {
  std::string op;
  std::string backend;
  int nranks = 0;
  std::vector<int> ranks;  // global ranks of the communicator the op ran on
  std::string dtype;
  std::string redop;             // "none" for ops without reduction
  int root = -1;                 // -1 when the op has no root
  std::uint64_t size_bytes = 0;  // nccl-tests' size column: max(send, recv) bytes
  std::uint64_t count = 0;       // nccl-tests' count column: the count passed to the call
  bool in_place = false;
  bool op_has_in_place = true;  // false: no in-place record follows (sendrecv, pair)
  double time_us = 0;           // median per-op time over the timed batches
  double algbw_gbps = 0;
  double busbw_gbps = 0;
  std::int64_t wrong = -1;  // wrong elements over all ranks; -1 when not checked
  int out_of_bounds = 0;    // processes whose data check found wrong values (nccl-tests' "Out of bounds" count)
  Stats stats;
  int ops_per_batch = 0;
  int warmup = 0;
  bool graph = false;
  std::vector<RankPair> pairs;  // pair op only
  bool bidirectional = false;
  std::vector<int> plan_ids;  // bench --plan: the ids of the plan messages this point times
  std::string link_class;     // worst pair class of the ranks (PIX, NV18, NET...); empty = unknown
  // Theoretical GB/s per direction of the narrowest link on the paths between the ranks' GPUs
  // (topology/link_bandwidth.h); unset when unknown (host ranks, ranks on several hosts).
  std::optional<double> path_min_gbps;
  std::string error;      // non-empty when the point failed
  std::string timestamp;  // bench -S: UTC "YYYY-MM-DD HH:MM:SS" when the point finished; empty = not asked
  // --split: each group's own measurement is a record of its own (split_group 0, 1, ...; ranks = the
  // group's, time over the group's processes), after the row nccl-tests prints (split_aggregate: the time
  // over every rank of every group, busbw per group; ranks = rank 0's group).
  int split_group = -1;
  bool split_aggregate = false;
  // bench --plan: the plan's disjoint groups (global ranks) that ran this op at once, each on its own
  // communicator, as their gradient reductions do at the end of an iteration; `ranks` is their union and
  // the time is over all of them (busbw per group). Empty: the op ran alone (every other record).
  std::vector<std::vector<int>> at_once;
};

// A measurement of one group alone: what a cost per (op, group, size) is read from.
[[nodiscard]] inline bool ran_alone(const ResultRecord& r) { return r.at_once.empty(); }

// What nccl-tests prints as a table row: a point, or under --split the row over all groups.
[[nodiscard]] inline bool is_table_row(const ResultRecord& r) { return r.split_group < 0; }
// A measurement of one communicator (what results files hold): a point, or under --split one group's.
[[nodiscard]] inline bool is_measurement(const ResultRecord& r) { return !r.split_aggregate; }

}  // namespace pipebench
