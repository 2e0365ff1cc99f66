// SPDX-License-Identifier: Apache-2.0
#include "megatron/p2p_calls.h"

#include "schedule/schedule_registry.h"

namespace pipebench {
namespace {

// Passes on the calls that carry something; compute steps and waits are not messages.
class CallSink final : public ProgramSink {
 public:
  explicit CallSink(const std::function<void(const Call&)>& f) : f_(f) {}
  void compute(Pass /*pass*/, std::int64_t /*k*/) override {}
  void call(const Call& c) override {
    if (c.nops > 0) f_(c);
  }
  void wait(int /*handle*/) override {}

 private:
  const std::function<void(const Call&)>& f_;
};

}  // namespace

void for_each_p2p_call(const ScheduleShape& shape, const ScheduleId& id, int r,
                       const std::function<void(const Call&)>& f) {
  if (shape.p <= 1) return;
  CallSink sink(f);
  schedule_generator(id).emit(shape, r, sink);
}

}  // namespace pipebench
