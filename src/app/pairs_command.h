// SPDX-License-Identifier: Apache-2.0
// `pipebench pairs`: every ordered GPU pair (or --pairs), one pair at a time, unidirectional and
// bidirectional send/recv at each size, printed as matrices beside the class matrix, each cell also as
// a fraction of the path's theoretical bandwidth. Records go to the results JSON with the pair's class.
#pragma once

#include "cli/cli.h"
#include "launch/world.h"

namespace pipebench {

[[nodiscard]] int run_pairs_command(const PairsOptions& options, const World& world);

}  // namespace pipebench
