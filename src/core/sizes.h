// SPDX-License-Identifier: Apache-2.0
// The sizes of a sweep: nccl-tests' -b/-e/-f/-i rules, or an explicit list.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace pipebench {

// A linear sweep longer than this is a typo (-e 64T with the default -i 1M), not a plan.
inline constexpr std::uint64_t kMaxSweepSizes = 10000;

// factor > 1: min, min*factor, ... <= max; factor <= 1: min, min+step, ... <= max (nccl-tests
// setupArgs). Throws UsageError when min > max, step == 0 with factor <= 1, or the linear sweep
// exceeds kMaxSweepSizes.
[[nodiscard]] std::vector<std::uint64_t> sweep_sizes(std::uint64_t min_bytes, std::uint64_t max_bytes,
                                                     std::uint64_t factor, std::uint64_t step_bytes);

// "8,256K,64M": each parsed with parse_size_bytes. Throws UsageError naming flag, also for a size given
// twice.
[[nodiscard]] std::vector<std::uint64_t> parse_size_list(std::string_view flag, std::string_view text);

}  // namespace pipebench
