// SPDX-License-Identifier: Apache-2.0
// One directed transfer between two ranks (the pair op's pattern, a result record's pairs).
#pragma once

namespace pipebench {

struct RankPair {
  int src = 0;
  int dst = 0;
  bool operator==(const RankPair& o) const { return src == o.src && dst == o.dst; }
};

}  // namespace pipebench
