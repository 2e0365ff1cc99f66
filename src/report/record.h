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
};

}  // namespace pipebench
