// SPDX-License-Identifier: Apache-2.0
#include "schedule/activation_memory.h"

#include <algorithm>

namespace pipebench {
namespace {

class HeldSink final : public ProgramSink {
 public:
  explicit HeldSink(Pass frees) : frees_(frees) {}
  void compute(Pass pass, std::int64_t /*k*/) override {
    if (pass == Pass::kForward) peak_ = std::max(peak_, ++held_);
    if (pass == frees_) --held_;
  }
  void call(const Call& /*c*/) override {}
  void wait(int /*handle*/) override {}
  [[nodiscard]] std::int64_t peak() const { return peak_; }

 private:
  Pass frees_;
  std::int64_t held_ = 0, peak_ = 0;
};

}  // namespace

std::vector<double> peak_activations(const ScheduleGenerator& g, const ScheduleShape& shape) {
  std::vector<HeldSink> sinks(static_cast<std::size_t>(shape.p),
                              HeldSink(g.splits_backward() ? Pass::kWeight : Pass::kBackward));
  g.emit_all(shape, [&sinks](int r) -> ProgramSink& { return sinks[static_cast<std::size_t>(r)]; });
  std::vector<double> out;
  for (const HeldSink& sink : sinks) out.push_back(static_cast<double>(sink.peak()) / shape.v);
  return out;
}

}  // namespace pipebench
