// SPDX-License-Identifier: Apache-2.0
// A schedule's memory note: the activations each pipeline rank holds at its peak, in microbatches of the
// rank's whole model part, counted from the generator's own order. A forward pass stores a microbatch's
// activations on its chunk; the pass that ends the chunk's backward frees them (W where the schedule splits
// the backward, as Qi et al. 2024 §2 count in-flight microbatches; otherwise B). A chunk holds 1/v of the
// rank's layers, so an interleaved pass counts 1/v. 1F1B's rank r holds min(p - r, m) (Narayanan et al.
// 2021 §2.2).
#pragma once

#include <cstdint>
#include <vector>

#include "schedule/program.h"
#include "schedule/schedule_registry.h"

namespace pipebench {

// One rank's count, fed its compute passes in order (a generator's ProgramSink, or the passes of a program
// generated for another purpose: predict counts while it generates).
class HeldActivations {
 public:
  // frees: the pass that frees a microbatch's activations (kWeight where the schedule splits the backward).
  explicit HeldActivations(Pass frees) : frees_(frees) {}
  void pass(Pass p) {
    if (p == Pass::kForward && ++held_ > peak_) peak_ = held_;
    if (p == frees_) --held_;
  }
  // The peak in microbatches of the rank's whole model part (a chunk holds 1/v of it).
  [[nodiscard]] double peak(int v) const { return static_cast<double>(peak_) / v; }

 private:
  Pass frees_;
  std::int64_t held_ = 0, peak_ = 0;
};

// The pass that frees a microbatch's activations in schedules of generator g.
[[nodiscard]] inline Pass freeing_pass(const ScheduleGenerator& g) {
  return g.splits_backward() ? Pass::kWeight : Pass::kBackward;
}

// Per pipeline rank, the largest number of microbatches whose activations are held at once.
[[nodiscard]] std::vector<double> peak_activations(const ScheduleGenerator& g, const ScheduleShape& shape);

}  // namespace pipebench
