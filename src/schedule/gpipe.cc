// SPDX-License-Identifier: Apache-2.0
// GPipe (Huang et al., 2019): every forward, then every backward; each step receives, computes and sends
// with blocking calls. Megatron does not run it: a reference on the 1F1B plan's messages.
#include "schedule/program_writer.h"
#include "schedule/schedule_registry.h"

namespace pipebench {
namespace {

class Gpipe final : public ScheduleGenerator {
 public:
  const char* name() const override { return "gpipe"; }
  const char* summary() const override { return "all forwards, then all backwards"; }
  bool interleaves() const override { return false; }
  bool reference() const override { return true; }
  void emit(const ScheduleShape& shape, int r, ProgramSink& sink) const override {
    ProgramWriter w(shape, r, sink);
    for (std::int64_t k = 0; k < shape.m; ++k) w.blocking_step(Pass::kForward, k);
    for (std::int64_t k = 0; k < shape.m; ++k) w.blocking_step(Pass::kBackward, k);
  }
};

}  // namespace

PB_REGISTER_SCHEDULE(Gpipe);

}  // namespace pipebench
