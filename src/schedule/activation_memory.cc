// SPDX-License-Identifier: Apache-2.0
#include "schedule/activation_memory.h"

#include <algorithm>

namespace pipebench {
namespace {

class HeldSink final : public ProgramSink {
 public:
  explicit HeldSink(Pass frees) : held_(frees) {}
  void compute(Pass pass, std::int64_t /*k*/) override { held_.pass(pass); }
  void call(const Call& /*c*/) override {}
  void wait(int /*handle*/) override {}
  [[nodiscard]] double peak(int v) const { return held_.peak(v); }

 private:
  HeldActivations held_;
};

}  // namespace

std::vector<double> peak_activations(const ScheduleGenerator& g, const ScheduleShape& shape) {
  std::vector<HeldSink> sinks(static_cast<std::size_t>(shape.p), HeldSink(freeing_pass(g)));
  g.emit_all(shape, [&sinks](int r) -> ProgramSink& { return sinks[static_cast<std::size_t>(r)]; });
  std::vector<double> out;
  for (const HeldSink& sink : sinks) out.push_back(sink.peak(shape.v));
  return out;
}

}  // namespace pipebench
