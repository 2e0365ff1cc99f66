// SPDX-License-Identifier: Apache-2.0
// Helpers of the pair op: parsing "--pairs 0:1,3:0" and the list of transfers a run makes.
#pragma once

#include <string_view>
#include <vector>

#include "collectives/op.h"

namespace pipebench {

// "0:1,3:0" -> {{0,1},{3,0}}. Throws UsageError naming flag on malformed text.
[[nodiscard]] std::vector<RankPair> parse_pairs(std::string_view flag, std::string_view text);

// The pairs, each followed by its reverse when bidirectional.
[[nodiscard]] std::vector<RankPair> pair_transfers(const OpParams& params);

}  // namespace pipebench
