// SPDX-License-Identifier: Apache-2.0
// Generators' programs with durations: ZB-H1 against the closed forms of Qi et al.,
// "Zero Bubble Pipeline Parallelism", ICLR 2024, §2-3, and the W passes' times.
#include "sim/schedules.h"

#include <gtest/gtest.h>

#include "sim/simulator.h"

namespace pipebench {
namespace {

// Uniform compute: F, B and W each t per stage and microbatch (bwd = B + W = 2t where a schedule does not
// split it; split at the default share, half each).
ScheduleSpec uniform(const std::string& name, int p, std::int64_t m, SimTime t) {
  ScheduleSpec s;
  s.id = {name, 1};
  s.p = p;
  s.m = m;
  s.p2p_bytes = 1 << 20;
  s.fwd.assign(static_cast<std::size_t>(p), {t});
  s.bwd.assign(static_cast<std::size_t>(p), {2 * t});
  for (int r = 0; r < p; ++r) s.warmup.push_back(std::min<std::int64_t>(p - r - 1, m));
  return s;
}

SimCosts latency(SimTime t) {
  SimCosts c;
  c.p2p = [t](int, int, std::int64_t) { return t; };
  return c;
}

SimTime run(const ScheduleSpec& s, SimTime comm = 0) {
  return simulate(generate_schedule(s), {}, latency(comm)).iteration;
}

// §2.1 / §3 with T_F = T_B = T_W = t and free communication: 1F1B takes (m + p - 1) 3t; ZB-H1's bubble is
// (p-1)(T_F + T_B - T_W), so 3mt + (p-1)t, the one-iteration bound (the last stage idles (p-1)t before its
// first forward in any schedule).
TEST(Schedules, ZeroBubbleSchedulesMatchThePapersFormsWithFreeCommunication) {
  const SimTime t = 1000;
  for (int p : {2, 4, 8}) {
    for (std::int64_t m : {std::int64_t{p}, std::int64_t{2} * p, std::int64_t{16}}) {
      const std::string where = "p " + std::to_string(p) + " m " + std::to_string(m);
      EXPECT_EQ(run(uniform("1f1b", p, m, t)), (m + p - 1) * 3 * t) << where;
      const SimTime h1 = run(uniform("zb-h1", p, m, t));
      EXPECT_EQ(h1, 3 * m * t + (p - 1) * t) << where;
    }
  }
}

// p 4, m 16 within 1 %; with a transfer time of t per hop ZB-H1's deferred W passes no longer fill every
// gap: it stays between the bound and 1F1B's time with the same transfers.
TEST(Schedules, ZbH1WithTransferTime) {
  const SimTime t = 1000;
  const int p = 4;
  const std::int64_t m = 16;
  EXPECT_NEAR(static_cast<double>(run(uniform("zb-h1", p, m, t))), 3.0 * m * t + (p - 1) * t, 0.01 * 3 * m * t);
  const SimTime h1 = run(uniform("zb-h1", p, m, t), t / 10);
  EXPECT_GT(h1, 3 * m * t + (p - 1) * t);
  EXPECT_LT(h1, run(uniform("1f1b", p, m, t), t / 10));
}

// W passes carry wgt's times; a spec without them splits bwd in halves; B + W is the unsplit backward.
TEST(Schedules, WeightPassesTakeTheirOwnTimes) {
  ScheduleSpec s = uniform("zb-h1", 2, 2, 1000);
  const auto halves = generate_schedule(s);
  s.bwd.assign(2, {1500});
  s.wgt.assign(2, {500});
  const auto split = generate_schedule(s);
  for (const auto* programs : {&halves, &split}) {
    SimTime f = 0, b = 0, w = 0;
    int ws = 0;
    for (const auto& task : (*programs)[0].tasks) {
      if (task.kind != Task::Kind::kCompute) continue;
      (task.forward ? f : task.wgrad ? w : b) += task.duration;
      if (task.wgrad) {
        ++ws;
        EXPECT_EQ(task.label().substr(0, 1), "W");
      }
    }
    EXPECT_EQ(ws, 2);
    EXPECT_EQ(f, 2000);
    EXPECT_EQ(b + w, 4000);
    EXPECT_EQ(w, programs == &halves ? 2000 : 1000);
  }
}

}  // namespace
}  // namespace pipebench
