// SPDX-License-Identifier: Apache-2.0
#include "schedule/timeline_steps.h"

#include <algorithm>
#include <string>
#include <tuple>

#include "core/error.h"
#include "schedule/program_writer.h"

namespace pipebench {
namespace {

// When each stage's forward and backward of each microbatch ends, every pass taking one unit and every
// transfer none. Ranks are advanced in turn as far as their inputs allow.
class UnitTimeline {
 public:
  UnitTimeline(const ScheduleShape& s, const std::vector<std::vector<PassStep>>& orders)
      : s_(s), stages_(s.p * s.v), f_end_(cells(), -1), b_end_(cells(), -1) {
    std::vector<std::size_t> next(orders.size(), 0);
    std::vector<std::int64_t> free(orders.size(), 0);
    for (bool moved = true; moved;) {
      moved = false;
      for (std::size_t r = 0; r < orders.size(); ++r) {
        for (; next[r] < orders[r].size(); ++next[r], moved = true) {
          const PassStep& st = orders[r][next[r]];
          const int stage = stage_of(static_cast<int>(r), st);
          const std::int64_t ready = input_end(st, stage);
          if (ready < 0) break;
          free[r] = std::max(free[r], ready) + 1;
          if (st.pass != Pass::kWeight) slot(st.pass, stage, s_.microbatch(st.k)) = free[r];
        }
      }
    }
    for (std::size_t r = 0; r < orders.size(); ++r) {
      if (next[r] < orders[r].size())
        throw Error("schedule: rank " + std::to_string(r) + " waits for an input no pass of the order produces");
    }
  }

  [[nodiscard]] int stage_of(int r, const PassStep& st) const { return s_.stage(r, s_.chunk(st.pass, st.k)); }
  // When stage `stage`'s forward (or backward) of microbatch mb ends.
  [[nodiscard]] std::int64_t end(Pass pass, int stage, std::int64_t mb) const {
    return (pass == Pass::kForward ? f_end_ : b_end_)[cell(stage, mb)];
  }

 private:
  [[nodiscard]] std::size_t cells() const { return static_cast<std::size_t>(stages_) * static_cast<std::size_t>(s_.m); }
  [[nodiscard]] std::size_t cell(int stage, std::int64_t mb) const {
    return static_cast<std::size_t>(stage) * static_cast<std::size_t>(s_.m) + static_cast<std::size_t>(mb);
  }
  std::int64_t& slot(Pass pass, int stage, std::int64_t mb) {
    return (pass == Pass::kForward ? f_end_ : b_end_)[cell(stage, mb)];
  }
  // When a pass's input is there: the previous stage's forward; the next stage's backward, or on the last
  // stage its own forward; W needs nothing from another stage.
  [[nodiscard]] std::int64_t input_end(const PassStep& st, int stage) const {
    const std::int64_t mb = s_.microbatch(st.k);
    if (st.pass == Pass::kForward) return stage == 0 ? 0 : end(Pass::kForward, stage - 1, mb);
    if (st.pass == Pass::kBackward)
      return stage == stages_ - 1 ? end(Pass::kForward, stage, mb) : end(Pass::kBackward, stage + 1, mb);
    return 0;
  }

  const ScheduleShape& s_;
  int stages_;
  std::vector<std::int64_t> f_end_, b_end_;
};

// A transfer of this rank: its place in the shared order (when the tensor is ready, activation before
// gradient, the sending stage), its op, and the index of the step that sends or needs it.
struct Transfer {
  std::tuple<std::int64_t, bool, int> key;
  CallOp op;
  std::size_t step;
};

class Writer {
 public:
  Writer(const ScheduleShape& shape, const std::vector<PassStep>& order, int r, ProgramSink& sink)
      : order_(order), w_(shape, r, sink), recv_handle_(order.size(), -1) {}

  void run(const UnitTimeline& tl) {
    std::vector<Transfer> transfers;
    for (std::size_t i = 0; i < order_.size(); ++i) add_transfers(tl, i, transfers);
    std::sort(transfers.begin(), transfers.end(), [](const Transfer& a, const Transfer& b) { return a.key < b.key; });
    std::vector<int> sends;
    for (const Transfer& t : transfers) {
      if (t.op.send) {
        while (done_ <= t.step) run_step();
        sends.push_back(post(t.op));
      } else {
        recv_handle_[t.step] = post(t.op);
      }
    }
    while (done_ < order_.size()) run_step();
    for (const int h : sends) w_.wait(h);
  }

 private:
  void add_transfers(const UnitTimeline& tl, std::size_t i, std::vector<Transfer>& out) const {
    const PassStep& st = order_[i];
    if (st.pass == Pass::kWeight) return;
    const bool grad = st.pass == Pass::kBackward;
    const int stage = tl.stage_of(w_.rank(), st), from = grad ? stage + 1 : stage - 1;
    const std::int64_t mb = w_.shape().microbatch(st.k);
    Call in = w_.call("in"), result = w_.call("out");
    if (grad) {
      w_.recv_bwd(in, st.k);
      w_.send_bwd(result, st.k);
    } else {
      w_.recv_fwd(in, st.k);
      w_.send_fwd(result, st.k);
    }
    if (in.nops > 0) out.push_back({{tl.end(st.pass, from, mb), grad, from}, in.ops[0], i});
    if (result.nops > 0) out.push_back({{tl.end(st.pass, stage, mb), grad, stage}, result.ops[0], i});
  }

  int post(const CallOp& op) { return w_.alone(op.send, op.grad ? Pass::kBackward : Pass::kForward, op.k, true); }

  void run_step() {
    w_.wait(recv_handle_[done_]);
    const PassStep& st = order_[done_++];
    w_.compute(st.pass, st.k);
  }

  const std::vector<PassStep>& order_;
  ProgramWriter w_;
  std::vector<int> recv_handle_;
  std::size_t done_ = 0;
};

}  // namespace

void TimelineGenerator::emit(const ScheduleShape& shape, int r, ProgramSink& sink) const {
  const std::vector<std::vector<PassStep>> all = orders(shape);
  Writer(shape, all[static_cast<std::size_t>(r)], r, sink).run(UnitTimeline(shape, all));
}

void TimelineGenerator::emit_all(const ScheduleShape& shape, const SinkOf& sink_of) const {
  const std::vector<std::vector<PassStep>> all = orders(shape);
  const UnitTimeline timeline(shape, all);
  for (int r = 0; r < shape.p; ++r) Writer(shape, all[static_cast<std::size_t>(r)], r, sink_of(r)).run(timeline);
}

}  // namespace pipebench
