// SPDX-License-Identifier: Apache-2.0
#include "schedule/program.h"

#include <string>

#include "core/error.h"

namespace pipebench {

std::vector<std::pair<std::int64_t, int>> one_chunk_table(std::int64_t m) {
  std::vector<std::pair<std::int64_t, int>> t;
  t.reserve(static_cast<std::size_t>(m));
  for (std::int64_t k = 0; k < m; ++k) t.emplace_back(k, 0);
  return t;
}

std::vector<std::int64_t> ScheduleShape::forward_step_of() const {
  std::vector<std::int64_t> k_of(static_cast<std::size_t>(m * v), -1);
  for (std::int64_t k = 0; k < steps(); ++k) {
    auto& slot = k_of.at(static_cast<std::size_t>(microbatch(k) * v + chunk(Pass::kForward, k)));
    if (slot >= 0) throw Error("the forward table names microbatch " + std::to_string(microbatch(k)) + " twice");
    slot = k;
  }
  return k_of;
}

}  // namespace pipebench
