// SPDX-License-Identifier: Apache-2.0
// Which ranks a firing watchdog names: those whose heartbeat stood still on its host, never those that
// beat (merely slow) nor those on other hosts (not seen).
#include "harness/heartbeats.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace pipebench {
namespace {

const std::vector<std::string> kOneHost = {"vm", "vm", "vm", "vm"};

TEST(Heartbeats, ARankWhoseHeartbeatStoodStillIsSilentAndOneThatMovedAnswered) {
  // Rank 1's file did not move during the grace; rank 3 made its file during it.
  const auto a = answers({10, 20, 30, -1}, {15, 20, 35, 40}, kOneHost, "vm");
  EXPECT_EQ(a, (std::vector<Answer>{Answer::kAnswered, Answer::kSilent, Answer::kAnswered, Answer::kAnswered}));
}

TEST(Heartbeats, ARankWithNoFileIsSilent) {
  EXPECT_EQ(answers({-1, 5}, {-1, 6}, {"vm", "vm"}, "vm"), (std::vector<Answer>{Answer::kSilent, Answer::kAnswered}));
}

TEST(Heartbeats, RanksOnOtherHostsAreNotChecked) {
  const auto a = answers({1, -1, 1, -1}, {2, -1, 2, -1}, {"a", "b", "a", "b"}, "a");
  EXPECT_EQ(a, (std::vector<Answer>{Answer::kAnswered, Answer::kOtherHost, Answer::kAnswered, Answer::kOtherHost}));
}

TEST(Heartbeats, TheLineNamesTheStoppedRankAndTheOnesThatAnswered) {
  const std::vector<Answer> a = {Answer::kAnswered, Answer::kSilent, Answer::kAnswered, Answer::kAnswered};
  EXPECT_EQ(who_stopped(a, "vm", "rank 0 on host vm"),
            ": rank 1 (host vm) stopped answering; ranks 0, 2, 3 answered (alive, waiting or working in the point)");
  EXPECT_EQ(speaker(a), 0);
}

TEST(Heartbeats, SeveralStoppedRanksAndOtherHostsAreEachNamed) {
  const std::vector<Answer> a = {Answer::kSilent, Answer::kOtherHost, Answer::kSilent, Answer::kAnswered};
  EXPECT_EQ(who_stopped(a, "a", "rank 3 on host a"),
            ": ranks 0, 2 (host a) stopped answering; rank 3 answered (alive, waiting or working in the point); "
            "rank 1 on other hosts not checked");
  EXPECT_EQ(speaker(a), 3);
}

TEST(Heartbeats, ASlowRankThatAnsweredIsNotBlamed) {
  EXPECT_EQ(who_stopped({Answer::kAnswered, Answer::kAnswered}, "vm", "rank 0 on host vm"),
            " on rank 0 on host vm; no rank of host vm stopped answering (the point is slow or hung)");
  EXPECT_EQ(who_stopped({Answer::kAnswered, Answer::kOtherHost}, "a", "rank 0 on host a"),
            " on rank 0 on host a; no rank of host a stopped answering (the point is slow or hung, or a rank of "
            "another host stopped); rank 1 on other hosts not checked");
}

TEST(Heartbeats, NoSpeakerWhenNoRankAnswered) { EXPECT_EQ(speaker({Answer::kSilent, Answer::kOtherHost}), -1); }

}  // namespace
}  // namespace pipebench
