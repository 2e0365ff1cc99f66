// SPDX-License-Identifier: Apache-2.0
// ZB-2p (Qi et al., "Zero Bubble Pipeline Parallelism", ICLR 2024, §3.1, the automatic schedule within twice
// 1F1B's activation memory, 2p M_B): each rank's order of F, B and W planned from the passes' times by the
// paper's greedy heuristic, the schedule the paper's Table 4 measures as ZB-2p. Memory is counted as the
// paper counts it: F holds M_B, B frees all but the M_W its W needs, W frees the rest. ZB-H2
// (zb_h2.cc) is the same memory's schedule written by hand for F = B = W; where the weight gradient is
// cheaper than the forward (T_W about half of T_F in the paper's Table 9), its cool-down leaves the first
// ranks waiting for gradients, a gap inside the rank that no overlap of iterations removes. The heuristic
// plans with the real times: how many forwards a rank runs before its first B (as many as fit before the
// gradient returns), and a W wherever the next pass's input is not there yet.
//
// The heuristic, per microbatch i, as the authors' scheduler implements it (sail-sg/zero-bubble-pipeline-
// parallelism, megatron/core/pipeline_parallel/zerobubble/scheduler/zb.py, manual_order):
// - i = 0: every stage runs F0; then, from the last stage back, each stage takes extra forwards while they
//   end before the gradient of microbatch 0 can be back (and memory allows), no stage more than the one
//   before it; then every stage's B0, last stage first.
// - i > 0: a stage runs its next F unless (when B is put first) its successor is two forwards behind and
//   waiting would cost less than the largest bubble so far; no stage more forwards than its successor. Before
//   an F or a B whose input is not there yet, the stage runs pending W passes that fit the wait (and one more
//   where the wait is longer than the bubble the stage may still take); W passes also run wherever memory is
//   full. After its last F, the first stage runs every pending W before each B.
// - every pending W closes the iteration.
// Eight variants (a bubble allowed before the first B or not; B put first or not; the greedy W or not) are
// planned, and the one whose longest stage (its first F's start to its last W's end: the time an iteration
// takes once iterations overlap, post-validation) is shortest is kept. The passes' times come from the build
// (ScheduleShape::pass_ns); communication is planned as free, so the predictor and the replay (which builds
// its programs without link costs) plan the same order, and the simulator then prices the transfers.
#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

#include "core/error.h"
#include "schedule/schedule_registry.h"
#include "schedule/timeline_steps.h"

namespace pipebench {

namespace {

enum Kind : int { kF = 0, kB = 1, kW = 2 };

struct Variant {
  bool bubble_before_first_b = false, b_first = false, greedy_w = false;
};

// One plan of the heuristic for p stages and m microbatches within `limit` microbatches' activations per stage:
// an F holds a microbatch's (M_B), its B frees all but the share its W still needs (w_held = M_W / M_B), and
// the W frees that (Qi et al. §3.1).
class GreedyPlan {
 public:
  GreedyPlan(const std::vector<std::array<double, 3>>& cost, std::int64_t m, double limit, double w_held, Variant v)
      : cost_(cost),
        s_(static_cast<int>(cost.size())),
        m_(m),
        limit_(limit),
        w_held_(w_held),
        v_(v),
        done_(static_cast<std::size_t>(s_), {0, 0, 0}),
        end_(static_cast<std::size_t>(s_), 0.0),
        held_(static_cast<std::size_t>(s_), 0.0),
        bubble_(static_cast<std::size_t>(s_), 0.0),
        t_(static_cast<std::size_t>(3 * s_) * static_cast<std::size_t>(m), 0.0),
        orders_(static_cast<std::size_t>(s_)) {}

  // False where the plan cannot keep within the memory limit.
  bool run() {
    for (std::int64_t i = 0; i < m_; ++i) {
      if (!(i == 0 ? first_microbatch() : next_microbatch(i))) return false;
    }
    for (int j = 0; j < s_; ++j) {
      while (done(j, kW) < m_) put(j, kW);
    }
    return true;
  }

  // The longest stage: from its first F's start to its last W's end.
  [[nodiscard]] double span() const {
    double longest = 0;
    for (int j = 0; j < s_; ++j) longest = std::max(longest, t(kW, j, m_ - 1) - t(kF, j, 0) + cost(j, kF));
    return longest;
  }

  std::vector<std::vector<PassStep>> take() { return std::move(orders_); }

 private:
  [[nodiscard]] double cost(int j, int kind) const {
    return cost_[static_cast<std::size_t>(j)][static_cast<std::size_t>(kind)];
  }
  [[nodiscard]] std::int64_t& done(int j, int kind) {
    return done_[static_cast<std::size_t>(j)][static_cast<std::size_t>(kind)];
  }
  [[nodiscard]] std::int64_t done(int j, int kind) const {
    return done_[static_cast<std::size_t>(j)][static_cast<std::size_t>(kind)];
  }
  [[nodiscard]] double& t(int kind, int j, std::int64_t i) {
    return t_[(static_cast<std::size_t>(kind * s_ + j)) * static_cast<std::size_t>(m_) + static_cast<std::size_t>(i)];
  }
  [[nodiscard]] double t(int kind, int j, std::int64_t i) const {
    return t_[(static_cast<std::size_t>(kind * s_ + j)) * static_cast<std::size_t>(m_) + static_cast<std::size_t>(i)];
  }
  double& end(int j) { return end_[static_cast<std::size_t>(j)]; }
  double& held(int j) { return held_[static_cast<std::size_t>(j)]; }
  double& bubble(int j) { return bubble_[static_cast<std::size_t>(j)]; }

  // Stage j's next pass of `kind`, after its previous pass and its input (the previous stage's F, the next
  // stage's B; transfers free).
  void put(int j, int kind) {
    const std::int64_t i = done(j, kind);
    const double c = cost(j, kind), gapless = end(j) + c;
    double at = gapless;
    if (kind == kF && j > 0) at = std::max(at, t(kF, j - 1, i) + c);
    if (kind == kB && j < s_ - 1) at = std::max(at, t(kB, j + 1, i) + c);
    if (done(j, kF) > 0) {
      bubble(j) += at - gapless;
      max_bubble_ = std::max(max_bubble_, bubble(j));
    }
    end(j) = at;
    t(kind, j, i) = at;
    held(j) += kind == kF ? 1 : kind == kW ? -w_held_ : w_held_ - 1;
    ++done(j, kind);
    orders_[static_cast<std::size_t>(j)].push_back({kind == kF   ? Pass::kForward
                                                    : kind == kB ? Pass::kBackward
                                                                 : Pass::kWeight,
                                                    i});
  }

  // Pending W passes of stage j before a pass whose input is there at `ready`: those that end by then, and one
  // more where the stage is still early (always, or with the greedy W where the wait fits the bubble it may
  // still take).
  void fill_wait(int j, double ready) {
    while (done(j, kW) < done(j, kB) && end(j) + cost(j, kW) <= ready) put(j, kW);
    if (done(j, kW) < done(j, kB) && end(j) < ready) {
      if (ready - end(j) > max_bubble_ - bubble(j) || v_.greedy_w) put(j, kW);
    }
  }

  // Frees memory with pending W passes until a pass that adds `add` fits; false where none is left to run.
  bool make_room(int j, double add) {
    while (held(j) + add > limit_) {
      if (done(j, kW) >= done(j, kB)) return false;
      put(j, kW);
    }
    return true;
  }

  bool first_microbatch() {
    for (int j = 0; j < s_; ++j) put(j, kF);
    std::vector<std::int64_t> extra(static_cast<std::size_t>(s_), 0);
    double back = 0;  // when the gradient of microbatch 0 can reach stage j
    for (int j = s_ - 1; j >= 0; --j) {
      if (j == s_ - 1) {
        back = t(kF, j, 0) + cost(j, kB);
        continue;
      }
      double mem = held(j);
      std::int64_t n = 0;
      double busy = end(j);
      while (done(j, kF) + n < m_ && mem + 1 <= limit_) {
        if (v_.bubble_before_first_b ? busy + cost(j, kF) > back : busy >= back) break;
        ++mem;
        busy += cost(j, kF);
        ++n;
      }
      extra[static_cast<std::size_t>(j)] = n;
      back = std::max(busy, back) + cost(j, kB);
    }
    for (int j = 1; j < s_; ++j) {
      auto& n = extra[static_cast<std::size_t>(j)];
      while (n > 0 && n >= extra[static_cast<std::size_t>(j - 1)] && done(j, kF) + n < m_) --n;
    }
    for (int j = 0; j < s_; ++j) {
      for (std::int64_t n = 0; n < extra[static_cast<std::size_t>(j)]; ++n) put(j, kF);
    }
    for (int j = s_ - 1; j >= 0; --j) put(j, kB);
    return true;
  }

  // Whether stage j runs its next F in this round.
  bool wants_forward(int j) {
    if (done(j, kF) >= m_) return false;
    if (j + 1 >= s_ || done(j, kF) < done(j + 1, kF) + 2 || !v_.b_first) return true;
    const double successor = end(j + 1) + cost(j + 1, kF) + cost(j + 1, kB);
    if (end(j) >= successor) return false;
    double w_cost = 0;
    double mem = held(j) + 1;
    for (std::int64_t n = 0; mem > limit_ && done(j, kW) + n < done(j, kB); ++n) {
      w_cost += cost(j, kW);
      mem -= w_held_;
    }
    if (end(j) + cost(j, kF) + w_cost <= successor) return true;
    return successor - end(j) > max_bubble_ - bubble(j);
  }

  bool next_microbatch(std::int64_t i) {
    std::vector<bool> forward(static_cast<std::size_t>(s_));
    for (int j = 0; j < s_; ++j) forward[static_cast<std::size_t>(j)] = wants_forward(j);
    for (int j = s_ - 2; j >= 0; --j) {
      if (!forward[static_cast<std::size_t>(j + 1)]) forward[static_cast<std::size_t>(j)] = false;
    }
    for (int j = 0; j < s_; ++j) {
      if (!forward[static_cast<std::size_t>(j)]) continue;
      if (!make_room(j, 1)) return false;
      if (j > 0) fill_wait(j, t(kF, j - 1, done(j, kF)));
      put(j, kF);
    }
    for (int j = s_ - 1; j >= 0; --j) {
      if (done(j, kB) != i) throw Error("zb-2p: stage " + std::to_string(j) + " is off its backward order");
      if (!make_room(j, w_held_ - 1)) return false;
      if (j + 1 < s_) fill_wait(j, t(kB, j + 1, i));
      if (j == 0 && done(j, kF) == m_) {
        while (done(j, kW) < done(j, kB)) put(j, kW);
      }
      put(j, kB);
    }
    return true;
  }

  const std::vector<std::array<double, 3>>& cost_;
  int s_;
  std::int64_t m_;
  double limit_, w_held_;
  Variant v_;
  std::vector<std::array<std::int64_t, 3>> done_;
  std::vector<double> end_;
  std::vector<double> held_;
  std::vector<double> bubble_;
  double max_bubble_ = 0;
  std::vector<double> t_;
  std::vector<std::vector<PassStep>> orders_;
};

// Every stage's order from the best of the heuristic's variants. Equal passes where the shape has no times.
std::vector<std::vector<PassStep>> plan_orders(const ScheduleShape& shape, double limit) {
  std::vector<std::array<double, 3>> cost(static_cast<std::size_t>(shape.p), {1.0, 1.0, 1.0});
  if (shape.pass_ns.size() == static_cast<std::size_t>(shape.p)) {
    for (std::size_t j = 0; j < cost.size(); ++j) {
      for (std::size_t k = 0; k < 3; ++k) cost[j][k] = static_cast<double>(shape.pass_ns[j][k]);
    }
  }
  std::optional<double> best_span;
  std::vector<std::vector<PassStep>> best;
  for (const bool bubble_first : {true, false}) {
    for (const bool b_first : {true, false}) {
      for (const bool greedy_w : {true, false}) {
        GreedyPlan plan(cost, shape.m, limit, shape.w_held_share, {bubble_first, b_first, greedy_w});
        if (!plan.run()) continue;
        if (const double span = plan.span(); !best_span || span < *best_span) {
          best_span = span;
          best = plan.take();
        }
      }
    }
  }
  if (!best_span) throw Error("zb-2p: no order keeps within " + std::to_string(limit) + " microbatches' activations");
  return best;
}

class Zb2p final : public TimelineGenerator {
 public:
  const char* name() const override { return "zb-2p"; }
  const char* summary() const override { return "zero bubble, planned from pass times"; }
  bool interleaves() const override { return false; }
  bool reference() const override { return true; }
  bool splits_backward() const override { return true; }
  // The Zero Bubble paper's implementation runs its schedules with optimizer post-validation (Qi et al. §4).
  StepRule step_rule() const override { return StepRule::kPostValidation; }

 private:
  std::vector<PassStep> order(const ScheduleShape& shape, int q) const override {
    return orders(shape).at(static_cast<std::size_t>(q));
  }
  // Planned together: each stage's order depends on when its neighbours' passes end.
  std::vector<std::vector<PassStep>> orders(const ScheduleShape& shape) const override {
    return plan_orders(shape, 2.0 * shape.p);
  }
};

}  // namespace

PB_REGISTER_SCHEDULE(Zb2p);

}  // namespace pipebench
