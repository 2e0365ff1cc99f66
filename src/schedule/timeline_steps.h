// SPDX-License-Identifier: Apache-2.0
// Steps of the schedules that PyTorch's pipelining runs (ScheduleInterleavedZeroBubble, ScheduleZBVZeroBubble):
// each rank's order of passes as the generator gives it, with every input received and every output sent
// alone and asynchronously (torch.distributed.pipelining, schedules.py _step_microbatches: a receive is
// waited for just before the pass that needs it, the sends at the end of the step).
//
// Every rank posts its transfers in the order of one shared timeline: the ranks' orders played with unit
// passes and free communication, a transfer placed when its tensor is ready, then activations before
// gradients, then by the sending stage. Both ends of a transfer place it alike, so on a rank whose transfers
// run one after another (one NCCL stream) each meets its peer's in the same order, and no two ranks wait
// for each other whatever the passes' real times: a receive is posted before the pass that needs it, a send
// never blocks the rank, and every pass's input comes from a pass that runs earlier in the timeline.
#pragma once

#include <cstdint>
#include <vector>

#include "schedule/program.h"
#include "schedule/schedule_registry.h"

namespace pipebench {

struct PassStep {
  Pass pass = Pass::kForward;
  std::int64_t k = 0;  // virtual microbatch, as ProgramSink::compute takes it
};

// A generator whose steps are its ranks' orders of passes played in one timeline: it gives rank q's order,
// and rank r's steps (emit) or every rank's (emit_all, rank r's to sink_of(r) in rank order: the timeline of
// p ranks played once, not once per rank) follow from all of them. Both throw Error when the orders wait for
// each other (no pass of some rank can ever run): a generator bug.
class TimelineGenerator : public ScheduleGenerator {
 public:
  void emit(const ScheduleShape& shape, int r, ProgramSink& sink) const final;
  void emit_all(const ScheduleShape& shape, const SinkOf& sink_of) const final;

 private:
  // Pipeline rank q's passes in order (each forward and backward of every virtual microbatch once, a W after
  // its B).
  [[nodiscard]] virtual std::vector<PassStep> order(const ScheduleShape& shape, int q) const = 0;
  // Every rank's order: rank by rank unless the ranks are planned together (zb_2p.cc).
  [[nodiscard]] virtual std::vector<std::vector<PassStep>> orders(const ScheduleShape& shape) const {
    std::vector<std::vector<PassStep>> out;
    for (int q = 0; q < shape.p; ++q) out.push_back(order(shape, q));
    return out;
  }
};

// Collects the passes a generator writes (its calls and waits left out): an order TimelineGenerator::order
// gives.
class PassList final : public ProgramSink {
 public:
  void compute(Pass pass, std::int64_t k) override { steps.push_back({pass, k}); }
  void call(const Call& /*c*/) override {}
  void wait(int /*handle*/) override {}
  std::vector<PassStep> steps;
};

}  // namespace pipebench
