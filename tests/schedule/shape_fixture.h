// SPDX-License-Identifier: Apache-2.0
// The shape Megatron gives a pipeline of p ranks, v chunks, m microbatches (megatron_shape, megatron/plan.h, without a
// plan): warm-up forwards per rank and, with several chunks, the forward table in groups of p microbatches.
#pragma once

#include <algorithm>
#include <cstdint>

#include "schedule/program.h"

namespace pipebench::testing {

inline ScheduleShape megatron_like_shape(int p, int v, std::int64_t m) {
  ScheduleShape s;
  s.p = p;
  s.v = v;
  s.m = m;
  for (int r = 0; r < p; ++r) {
    s.warmup.push_back(v == 1 ? std::min<std::int64_t>(p - r - 1, m)
                              : std::min<std::int64_t>(2 * (p - r - 1) + static_cast<std::int64_t>(v - 1) * p, m * v));
  }
  for (std::int64_t g = 0; g < m; g += p)
    for (int c = 0; c < v; ++c)
      for (std::int64_t mb = g; mb < std::min<std::int64_t>(g + p, m); ++mb) s.table.emplace_back(mb, c);
  return s;
}

}  // namespace pipebench::testing
