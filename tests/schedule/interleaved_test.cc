// SPDX-License-Identifier: Apache-2.0
// Interleaved 1F1B with Megatron's tunable groups of N microbatches per virtual stage (core_v0.10+,
// megatron.md §1 and §3b): the leading stage receives what the other end sent p-1 steps before, so a group
// larger than the pipeline neither deadlocks nor moves a transfer to another step than Megatron's.
#include <gtest/gtest.h>

#include <utility>
#include <vector>

#include "schedule/deadlock_check.h"
#include "schedule/schedule_registry.h"

namespace pipebench {
namespace {

// Megatron's get_schedule_table and get_pp_rank_microbatches for p ranks, v chunks, m microbatches, groups of n.
ScheduleShape grouped(int p, int v, std::int64_t m, std::int64_t n, bool overlap = true) {
  ScheduleShape s;
  s.p = p;
  s.v = v;
  s.m = m;
  s.overlap_p2p = overlap;
  for (int r = 0; r < p; ++r) s.warmup.push_back(std::min<std::int64_t>(2 * (p - r - 1) + (v - 1) * n, m * v));
  for (std::int64_t g = 0; g < m; g += n) {
    const std::int64_t end = g + n >= m ? m : g + n;
    for (int c = 0; c < v; ++c)
      for (std::int64_t mb = g; mb < end; ++mb) s.table.emplace_back(mb, c);
    if (end == m) break;
  }
  return s;
}

// (forward step, input received) of every activation receive a rank posts, or (backward step, grad received).
class Receives final : public ProgramSink {
 public:
  explicit Receives(bool grad) : grad_(grad) {}
  void compute(Pass pass, std::int64_t k) override {
    if ((pass == Pass::kForward) != grad_) step_ = k;
  }
  void call(const Call& c) override {
    for (int i = 0; i < c.nops; ++i) {
      if (!c.ops[i].send && c.ops[i].grad == grad_) seen.emplace_back(step_, c.ops[i].k);
    }
  }
  void wait(int /*handle*/) override {}
  std::vector<std::pair<std::int64_t, std::int64_t>> seen;

 private:
  bool grad_;
  std::int64_t step_ = -1;
};

const ScheduleGenerator& interleaved() { return ScheduleRegistry::instance().find("test", "interleaved"); }

TEST(Interleaved, GroupsLargerThanThePipelineFinish) {
  // (p, v, m, N): N between p and m, m % N either 0 or at least p (Megatron's rule).
  const std::vector<std::vector<std::int64_t>> cases = {{4, 4, 16, 8}, {4, 2, 10, 6}, {3, 2, 11, 4}, {2, 2, 5, 3}};
  for (const auto& c : cases) {
    for (const bool overlap : {true, false}) {
      const ScheduleShape s = grouped(static_cast<int>(c[0]), static_cast<int>(c[1]), c[2], c[3], overlap);
      const auto d = find_deadlock(s, [&](int r, ProgramSink& sink) { interleaved().emit(s, r, sink); });
      EXPECT_FALSE(d.has_value()) << "p " << c[0] << " v " << c[1] << " m " << c[2] << " N " << c[3] << " overlap "
                                  << overlap << ": rank " << (d ? d->rank : -1) << " waits for "
                                  << (d ? d->waits_for : "");
    }
  }
}

// Megatron's own example (get_schedule_table's comment): p 2, N 3, m 5, v 2 gives the table
// mb 0 1 2 0 1 2 3 4 3 4, chunk 0 0 0 1 1 1 0 0 1 1. Rank 0 at step k takes what rank 1 sent at step k-1,
// for chunk 1 of that microbatch: at steps 1, 2, 3 the inputs of steps 3, 4, 5 (microbatches 0, 1, 2), at
// 7 and 8 those of 8 and 9; nothing after a chunk-1 send. Rank 1's grads from rank 0 mirror it.
TEST(Interleaved, LeadingStageReceivesWhatTheOtherEndSentPMinusOneStepsBefore) {
  const std::vector<std::pair<std::int64_t, std::int64_t>> megatron = {{1, 3}, {2, 4}, {3, 5}, {7, 8}, {8, 9}};
  for (const bool overlap : {true, false}) {
    const ScheduleShape s = grouped(2, 2, 5, 3, overlap);
    Receives activations(false), grads(true);
    interleaved().emit(s, 0, activations);
    interleaved().emit(s, 1, grads);
    EXPECT_EQ(activations.seen, megatron) << "overlap " << overlap;
    EXPECT_EQ(grads.seen, megatron) << "overlap " << overlap;
  }
}

// With the default N = p the leading stage's receive is the next step's input, as every other stage's.
TEST(Interleaved, DefaultGroupsReceiveTheNextStepsInput) {
  const ScheduleShape s = grouped(4, 2, 8, 4);
  for (int r = 0; r < s.p; ++r) {
    Receives activations(false);
    interleaved().emit(s, r, activations);
    ASSERT_FALSE(activations.seen.empty()) << "rank " << r;
    for (const auto& [step, input] : activations.seen) EXPECT_EQ(input, step + 1) << "rank " << r;
  }
}

}  // namespace
}  // namespace pipebench
