// SPDX-License-Identifier: Apache-2.0
#include "megatron/p2p_calls.h"

#include "megatron/plan.h"
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

ScheduleShape megatron_shape(const MegatronArgs& a, const Layout& l, const ScheduleId& id) {
  ScheduleShape s;
  s.p = l.pp;
  s.v = id.v;
  s.m = l.microbatches;
  s.overlap_p2p = a.overlap_p2p;
  s.placement = schedule_generator(id).placement();
  for (int r = 0; r < l.pp; ++r) s.warmup.push_back(warmup_microbatches(a, l, id.v, r));
  s.table = forward_table(a, l, id.v);
  return s;
}

void for_each_p2p_call(const MegatronArgs& a, const Layout& l, const ScheduleId& id, int r,
                       const std::function<void(const Call&)>& f) {
  if (l.pp <= 1) return;
  const ScheduleShape shape = megatron_shape(a, l, id);
  CallSink sink(f);
  schedule_generator(id).emit(shape, r, sink);
}

}  // namespace pipebench
