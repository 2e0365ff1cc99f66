// SPDX-License-Identifier: Apache-2.0
// A generator's steps as simulator tasks.
#include "sim/schedules.h"

#include <functional>
#include <optional>

#include "schedule/program.h"
#include "schedule/schedule_registry.h"

namespace pipebench {
namespace {

class TaskSink final : public ProgramSink {
 public:
  TaskSink(const ScheduleSpec& spec, const ScheduleShape& shape, int r) : spec_(spec), shape_(shape), r_(r) {
    prog_.tasks.reserve(static_cast<std::size_t>(shape.steps()) * 6 + 8);
    prog_.ops.reserve(static_cast<std::size_t>(shape.steps()) * 4 + 8);
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
  ScheduleShape shape;
  shape.p = spec.p;
  shape.v = spec.v;
  shape.m = spec.m;
  shape.overlap_p2p = spec.overlap_p2p;
  shape.placement = g.placement();
  shape.warmup = spec.warmup;
  shape.table = spec.table.empty() ? one_chunk_table(spec.m) : spec.table;
  // A spec built without W times (by hand) splits its backward at the default share, half each.
  ScheduleSpec halves;
  if (g.splits_backward() && spec.wgt.empty()) {
    halves = spec;
    halves.wgt = spec.bwd;
    for (std::size_t r = 0; r < spec.bwd.size(); ++r) {
      for (std::size_t c = 0; c < spec.bwd[r].size(); ++c) {
        halves.wgt[r][c] = spec.bwd[r][c] / 2;
        halves.bwd[r][c] = spec.bwd[r][c] - halves.wgt[r][c];
      }
    }
  }
  const ScheduleSpec& used = halves.wgt.empty() ? spec : halves;
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
    sink.emplace(used, shape, r);
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
