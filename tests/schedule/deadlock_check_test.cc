// SPDX-License-Identifier: Apache-2.0
// The deadlock check: every registered schedule finishes; programs whose blocking calls wait on each other
// are found, with the rank, the step and the transfer it waits for, before anything runs.
#include "schedule/deadlock_check.h"

#include <gtest/gtest.h>

#include "core/error.h"
#include "schedule/program_writer.h"
#include "schedule/schedule_file.h"
#include "schedule/schedule_registry.h"
#include "schedule/shape_fixture.h"

namespace pipebench {
namespace {

ScheduleShape shape(int p, int v, std::int64_t m) { return testing::megatron_like_shape(p, v, m); }

std::optional<Deadlock> of_generator(const char* name, const ScheduleShape& s) {
  const ScheduleGenerator& g = ScheduleRegistry::instance().find("test", name);
  return find_deadlock(s, [&](int r, ProgramSink& sink) { g.emit(s, r, sink); });
}

TEST(DeadlockCheck, RegisteredSchedulesFinish) {
  for (const std::string name : {"1f1b", "gpipe", "interleaved", "zb-h1"}) {
    const bool chunks = name == "interleaved";
    for (const bool overlap : {true, false}) {
      ScheduleShape s = shape(4, chunks ? 2 : 1, 8);
      s.overlap_p2p = overlap;
      EXPECT_FALSE(of_generator(name.c_str(), s).has_value()) << name;
    }
    EXPECT_FALSE(of_generator(name.c_str(), shape(2, chunks ? 3 : 1, 6)).has_value()) << name;
  }
}

// Both ranks receive first, each from the other: neither send is ever posted.
TEST(DeadlockCheck, TwoRanksThatBothReceiveFirstWaitForever) {
  const ScheduleShape s = shape(2, 1, 1);
  const auto d = find_deadlock(s, [&](int r, ProgramSink& sink) {
    ProgramWriter w(s, r, sink);
    w.compute(Pass::kForward, 0);  // a step before the wait, so that the step number means something
    Call in = w.call(r == 0 ? "recv_backward" : "recv_forward");
    r == 0 ? w.recv_bwd(in, 0) : w.recv_fwd(in, 0);
    w.issue(in);
    Call out = w.call(r == 0 ? "send_forward" : "send_backward");
    r == 0 ? w.send_fwd(out, 0) : w.send_bwd(out, 0);
    w.issue(out);
  });
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->rank, 0);
  EXPECT_EQ(d->step, 1U);
  EXPECT_EQ(d->waits_for, "the gradient of microbatch 0 from stage 1 to stage 0");
}

// An async call lets its rank go on; the wait that names it is where the rank stops.
TEST(DeadlockCheck, AnAsyncCallBlocksAtItsWait) {
  const ScheduleShape s = shape(2, 1, 1);
  const auto d = find_deadlock(s, [&](int r, ProgramSink& sink) {
    ProgramWriter w(s, r, sink);
    if (r == 1) return;  // rank 1 never receives
    Call out = w.call("send_forward", true);
    w.send_fwd(out, 0);
    const int h = w.issue(out);
    w.compute(Pass::kForward, 0);
    w.wait(h);
  });
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->rank, 0);
  EXPECT_EQ(d->step, 2U);
  EXPECT_EQ(d->waits_for, "rank 1 to receive the activation of microbatch 0 from stage 0 to stage 1");
}

// Rank 0 runs microbatch 1's backward before 0's; rank 1 sends 0's gradient first: each waits on the other.
TEST(DeadlockCheck, AScheduleFileThatDeadlocksIsOneLineNamingItsCell) {
  try {
    (void)schedule_from_csv("--schedule-file s.csv", "0F0,0F1,0B1,0B0\n1F0,1B0,1F1,1B1\n", "s", 2, 2);
    ADD_FAILURE() << "no deadlock found";
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what()),
              "--schedule-file s.csv: row 1, cell 3 '0B1': deadlock: rank 0 waits here for the gradient of microbatch "
              "1 from stage 1 to stage 0 and no rank can go on (each rank runs its actions in order, a receive before "
              "its compute, a send after it, in Megatron's blocking calls)");
  }
  // The same actions in an order that works.
  EXPECT_EQ(schedule_from_csv("f", "0F0,0F1,0B0,0B1\n1F0,1B0,1F1,1B1\n", "s", 2, 2).v, 1);
}

}  // namespace
}  // namespace pipebench
