// SPDX-License-Identifier: Apache-2.0
#include "schedule/program.h"

namespace pipebench {

std::vector<std::pair<std::int64_t, int>> one_chunk_table(std::int64_t m) {
  std::vector<std::pair<std::int64_t, int>> t;
  t.reserve(static_cast<std::size_t>(m));
  for (std::int64_t k = 0; k < m; ++k) t.emplace_back(k, 0);
  return t;
}

}  // namespace pipebench
