// SPDX-License-Identifier: Apache-2.0
// The console text of `bench --plan`: its first lines (the plan, its distinct messages and where they run,
// the column header), one row per timed message, and its last lines (messages left out, wrong values,
// failed points).
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "core/dtype.h"
#include "harness/record.h"
#include "harness/sweep.h"

namespace pipebench {

// "{0,1,2}", at most 6 ranks then ",...}".
[[nodiscard]] std::string plan_group_text(const std::vector<int>& group);

// plan: the plan file, as given; schedule: --schedule (empty: all of the plan's); at_once_points: gradient
// reductions of every group at once, timed after the distinct messages; backend: "nccl", "mpi".
void print_plan_bench_header(std::ostream& out, const std::string& plan, const std::string& schedule,
                             std::size_t distinct_messages, std::size_t at_once_points, int nranks,
                             const std::string& backend, int plan_world);

// One timed message (or batch, or reduction of several groups at once) and its record (whose plan_ids are
// the plan message ids it stands for). op: "pair fwd", "send 0->1", "batch of 3", "all_reduce x2"; group:
// global ranks, sorted; bytes: the bytes asked of the op; link_class: of the record's ranks (empty: not
// known); batch: the Megatron call(s) of a batch (empty: not a batch).
void print_plan_bench_row(std::ostream& out, const ResultRecord& rec, const std::string& op,
                          const std::vector<int>& group, std::int64_t elements, DType dtype, std::uint64_t bytes,
                          const std::string& link_class, const std::string& batch);

// left_out: "MESSAGE: why" of each message that was not timed.
void print_plan_bench_verdict(std::ostream& out, const std::vector<std::string>& left_out, const SweepSummary& s);

}  // namespace pipebench
