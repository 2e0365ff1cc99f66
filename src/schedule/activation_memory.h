// SPDX-License-Identifier: Apache-2.0
// A schedule's memory note: the activations each pipeline rank holds at its peak, in microbatches of the
// rank's whole model part, counted from the generator's own order. A forward pass stores a microbatch's
// activations on its chunk; the pass that ends the chunk's backward frees them (W where the schedule splits
// the backward, as Qi et al. 2024 §2 count in-flight microbatches; otherwise B). A chunk holds 1/v of the
// rank's layers, so an interleaved pass counts 1/v. 1F1B's rank r holds min(p - r, m) (Narayanan et al.
// 2021 §2.2).
#pragma once

#include <vector>

#include "schedule/program.h"
#include "schedule/schedule_registry.h"

namespace pipebench {

// Per pipeline rank, the largest number of microbatches whose activations are held at once.
[[nodiscard]] std::vector<double> peak_activations(const ScheduleGenerator& g, const ScheduleShape& shape);

}  // namespace pipebench
