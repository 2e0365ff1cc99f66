// SPDX-License-Identifier: Apache-2.0
// SweepSpec: what a sweep measures: ops x types x reductions x sizes (plan_points, harness/sweep.h), the
// ops' parameters and the ranks they run on. Apart from how each point is measured
// (harness/measure_settings.h): bench --plan, pairs and replay give their own points and use only the
// parameters here.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "collectives/op.h"
#include "core/dtype.h"
#include "core/split_expr.h"

namespace pipebench {

struct SweepSpec {
  std::vector<const Op*> ops;  // the registry's (collectives/registry.h); the command lines fill them

  std::vector<std::uint64_t> sizes_bytes;
  std::vector<DType> dtypes = {DType::kFloat};
  std::vector<RedOp> redops = {RedOp::kSum};
  OpParams params;
  std::vector<int> group;          // empty: every rank; else the ops run on these ranks only
  std::optional<SplitRule> split;  // --split / NCCL_TESTS_SPLIT(_MASK): concurrent groups
  // Started as an nccl-tests binary: nccl-tests' points, its unchecked in-place placement and its loop
  // over -o for ops that name one (collectives/op.h).
  bool nccl_tests_points = false;
};

}  // namespace pipebench
