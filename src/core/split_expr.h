// SPDX-License-Identifier: Apache-2.0
// nccl-tests' rule for concurrent groups: a colour per process from NCCL_TESTS_SPLIT ("AND 0x7", "MOD 2",
// "DIV 8", "OR 1", or the operators &, %, /, |) or NCCL_TESTS_SPLIT_MASK (a hex mask: colour = process &
// mask). Processes of one colour form one group; all groups run the same op at the same time.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace pipebench {

struct SplitRule {
  enum class Kind { kAnd, kOr, kMod, kDiv };
  Kind kind = Kind::kAnd;
  std::uint64_t value = 0;
  std::string text;  // as given, for messages and the report

  // nccl-tests common.cu run(): colour = proc OP value.
  [[nodiscard]] std::uint64_t color(int process) const;
};

// Throws UsageError naming `what` (the flag or variable) for an unknown operator, a value that is not a
// decimal, 0x hex or 0b binary integer, or MOD/DIV by 0.
[[nodiscard]] SplitRule parse_split_expr(std::string_view what, std::string_view text);
// A hex mask (nccl-tests reads it with strtoul(v, 16)); "0x" is allowed.
[[nodiscard]] SplitRule parse_split_mask(std::string_view what, std::string_view text);

// The processes 0..nprocs-1 grouped by colour, each group sorted, the groups in order of their
// smallest process. REQUIRES: nprocs >= 1.
[[nodiscard]] std::vector<std::vector<int>> split_groups(const SplitRule& rule, int nprocs);

}  // namespace pipebench
