// SPDX-License-Identifier: Apache-2.0
// A generator's steps as simulator tasks.
#include "sim/schedules.h"

#include <functional>
#include <optional>

#include "core/error.h"
#include "schedule/schedule_registry.h"

namespace pipebench {
namespace {

class TaskSink final : public ProgramSink {
 public:
  TaskSink(const ScheduleSpec& spec, int r) : spec_(spec), shape_(spec.shape), r_(r) {
    prog_.tasks.reserve(static_cast<std::size_t>(shape_.steps()) * 6 + 8);
    prog_.ops.reserve(static_cast<std::size_t>(shape_.steps()) * 4 + 8);
  }

  void compute(Pass pass, std::int64_t k) override {
    Task t;
    t.kind = Task::Kind::kCompute;
    t.chunk = shape_.chunk(pass, k);
    const auto& times = pass == Pass::kForward ? spec_.fwd : pass == Pass::kWeight ? spec_.wgt : spec_.bwd;
    t.duration = times[static_cast<std::size_t>(r_)][static_cast<std::size_t>(t.chunk)];
    t.pass = pass;
    t.mb = shape_.microbatch(k);
    prog_.tasks.push_back(t);
  }

  void call(const Call& c) override {
    // Each op's transfer: its peer (the rank of the neighbouring stage) and the tag of the stage that receives it.
    P2POp ops[4];
    for (int i = 0; i < c.nops; ++i)
      ops[i] = {c.ops[i].send, shape_.peer(r_, c.ops[i]), spec_.p2p_bytes, shape_.transfer_tag(r_, c.ops[i])};
    Task t;
    t.name = c.name;
    t.blocking = !c.async;
    t.handle = c.handle;
    prog_.add_p2p(t, ops, static_cast<std::size_t>(c.nops));
  }

  void wait(int handle) override {
    Task t;
    t.kind = Task::Kind::kWait;
    t.handle = handle;
    t.name = "wait";
    prog_.tasks.push_back(t);
  }

  Program take() { return std::move(prog_); }

 private:
  const ScheduleSpec& spec_;
  const ScheduleShape& shape_;
  int r_;
  Program prog_;
};

}  // namespace

void generate_schedule(const ScheduleSpec& spec, const std::function<void(int, Program&)>& take) {
  const ScheduleGenerator& g = schedule_generator(spec.id);
  const ScheduleShape& shape = spec.shape;
  if (shape.placement != g.placement()) throw Error("schedule " + spec.id.key() + ": a shape of another placement");
  if (g.splits_backward() && spec.wgt.size() != spec.bwd.size())
    throw Error("schedule " + spec.id.key() + " splits the backward: a spec without W times");
  // One rank's program at a time, handed on as soon as the generator moves to the next rank.
  std::optional<TaskSink> sink;
  int at = -1;
  const auto finish = [&] {
    if (!sink) return;
    Program prog = sink->take();
    sink.reset();
    take(at, prog);
  };
  g.emit_all(shape, [&](int r) -> ProgramSink& {
    finish();
    sink.emplace(spec, r);
    at = r;
    return *sink;
  });
  finish();
}

std::vector<Program> generate_schedule(const ScheduleSpec& spec) {
  std::vector<Program> out;
  generate_schedule(spec, [&out](int, Program& prog) { out.push_back(std::move(prog)); });
  return out;
}

}  // namespace pipebench
