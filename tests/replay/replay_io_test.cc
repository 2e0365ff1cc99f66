// SPDX-License-Identifier: Apache-2.0
// pipebench.replay/1: written, read back, and other documents refused.
#include "io/replay_io.h"

#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "core/error.h"

namespace pipebench {
namespace {

ReplayResult sample() {
  ReplayResult r;
  r.backend = "mpi";
  r.compute = "host-sleep";
  r.world = 2;
  r.iterations = 2;
  ScheduleReplay s;
  s.id = {"1f1b", 1};
  s.iteration_ms = {10, 12};
  s.median_ms = 11;
  s.min_ms = 10;
  s.max_ms = 12;
  s.predicted_ms = 13.2;
  s.per_rank.push_back({0, 6, 3, 2, 0.27, 0.3});
  s.per_rank.push_back({1, 6, 4, 1, 0.36, std::nullopt});
  r.schedules.push_back(s);
  r.measured_fastest = r.predicted_fastest = "1f1b";
  return r;
}

TEST(ReplayIo, RoundTripWithErrorAndVerdict) {
  const nlohmann::json j = replay_to_json(sample(), "plan.json");
  EXPECT_EQ(j["schema"], "pipebench.replay/1");
  EXPECT_NEAR(j["schedules"][0]["error"].get<double>(), (13.2 - 11) / 11, 1e-12);
  EXPECT_TRUE(j["verdict"]["agree"].get<bool>());
  EXPECT_TRUE(j["schedules"][0]["per_rank"][1]["predicted_comm_share"].is_null());
  const ReplayResult back = replay_from_json(j, "x.json");
  ASSERT_EQ(back.schedules.size(), 1u);
  EXPECT_DOUBLE_EQ(back.schedules[0].median_ms, 11);
  EXPECT_DOUBLE_EQ(*back.schedules[0].predicted_ms, 13.2);
  EXPECT_FALSE(back.schedules[0].per_rank[1].predicted_comm_share.has_value());
  EXPECT_EQ(back.predicted_fastest, "1f1b");
}

TEST(ReplayIo, NoPredictionLeavesErrorAndAgreementNull) {
  ReplayResult r = sample();
  r.schedules[0].predicted_ms.reset();
  r.predicted_fastest.clear();
  const nlohmann::json j = replay_to_json(r, "plan.json");
  EXPECT_TRUE(j["schedules"][0]["error"].is_null());
  EXPECT_TRUE(j["verdict"]["agree"].is_null());
}

TEST(ReplayIo, OtherSchemaOrBadNumbersAreUsageErrors) {
  EXPECT_THROW((void)replay_from_json({{"schema", "pipebench.prediction/1"}}, "x.json"), UsageError);
  EXPECT_THROW((void)replay_from_json(nlohmann::json::array(), "x.json"), UsageError);
  nlohmann::json j = replay_to_json(sample(), "plan.json");
  j["schedules"][0]["measured_iteration_ms"] = -1;
  EXPECT_THROW((void)replay_from_json(j, "x.json"), UsageError);
  j = replay_to_json(sample(), "plan.json");
  j.erase("world");
  EXPECT_THROW((void)replay_from_json(j, "x.json"), UsageError);
}

// The message of reading sample() edited by `edit` ("" when it reads).
std::string error_of(const std::function<void(nlohmann::json&)>& edit) {
  nlohmann::json j = replay_to_json(sample(), "plan.json");
  edit(j);
  try {
    (void)replay_from_json(j, "x.json");
  } catch (const UsageError& e) {
    return std::string(e.what());
  }
  return std::string();
}

// World -1, iterations 0 and a negative iteration time are each named.
TEST(ReplayIo, CountsAndTimesOutOfRangeAreNamed) {
  EXPECT_EQ(error_of([](nlohmann::json& j) { j["world"] = -1; }), "x.json: \"world\" is -1, outside [1, 1048576]");
  EXPECT_EQ(error_of([](nlohmann::json& j) { j["iterations"] = 0; }), "x.json: \"iterations\" is below 1");
  EXPECT_EQ(error_of([](nlohmann::json& j) { j["schedules"][0]["iterations_ms"][1] = -3; }),
            "x.json: \"schedules[0].iterations_ms[1]\" is not a finite number >= 0");
  // The derived error must be what the two times give: 1e300 is not taken as it is.
  EXPECT_EQ(error_of([](nlohmann::json& j) { j["schedules"][0]["error"] = 1e300; }),
            "x.json: \"schedules[0].error\" is 1e+300, not (predicted_iteration_ms - measured_iteration_ms) / "
            "measured_iteration_ms (0.2)");
  EXPECT_EQ(error_of([](nlohmann::json& j) {
              j["schedules"][0]["predicted_iteration_ms"] = nullptr;
              j["schedules"][0]["error"] = 0.5;
            }),
            "x.json: \"schedules[0].error\" is 0.5, not (predicted_iteration_ms - measured_iteration_ms) / "
            "measured_iteration_ms (no prediction: null)");
  EXPECT_EQ(error_of([](nlohmann::json&) {}), "");
}

// A schedule with an empty or shortened iterations_ms in a complete file is refused, not read as measured.
TEST(ReplayIo, IterationCountsMustMatchUnlessTheScheduleIsNamedIncomplete) {
  EXPECT_EQ(error_of([](nlohmann::json& j) { j["schedules"][0]["iterations_ms"] = nlohmann::json::array(); }),
            "x.json: schedules[0] (1f1b): 0 times in iterations_ms, not its 2 iterations, and schedules_incomplete "
            "does not name it");
  EXPECT_EQ(error_of([](nlohmann::json& j) { j["schedules"][0]["iterations_ms"].push_back(11); }),
            "x.json: schedules[0] (1f1b): 3 times in iterations_ms, more than its 2 iterations");
  // A stopped replay names the schedule: fewer times are what it measured.
  EXPECT_EQ(error_of([](nlohmann::json& j) {
              j["schedules"][0]["iterations_ms"].erase(1);
              j["complete"] = false;
              j["schedules_incomplete"] = {"1f1b"};
            }),
            "");
}

// A replay that stopped (killed, a rank lost) leaves a file that says so: "complete": false and the planned
// schedules without all their iterations; it never claims every iteration of every schedule.
TEST(ReplayIo, StoppedReplayIsMarkedIncomplete) {
  ReplayResult r = sample();
  r.iterations = 3;  // 1f1b has 2 of its 3
  r.planned = {"1f1b", "interleaved:v2", "gpipe"};
  r.complete = false;
  const nlohmann::json j = replay_to_json(r, "plan.json");
  EXPECT_EQ(j["complete"], false);
  EXPECT_EQ(j["schedules_incomplete"], nlohmann::json::array({"1f1b", "interleaved:v2", "gpipe"}));
  const ReplayResult back = replay_from_json(j, "x.json");
  EXPECT_FALSE(back.complete);
  EXPECT_EQ(back.incomplete, (std::vector<std::string>{"1f1b", "interleaved:v2", "gpipe"}));
  // Written again as read: still incomplete.
  EXPECT_EQ(replay_to_json(back, "plan.json")["complete"], false);

  r.iterations = 2;
  r.planned = {"1f1b"};
  r.complete = true;
  const nlohmann::json whole = replay_to_json(r, "plan.json");
  EXPECT_EQ(whole["complete"], true);
  EXPECT_TRUE(whole["schedules_incomplete"].empty());
  EXPECT_TRUE(replay_from_json(whole, "x.json").complete);
  nlohmann::json old = whole;  // files from before the field: complete
  old.erase("complete");
  old.erase("schedules_incomplete");
  EXPECT_TRUE(replay_from_json(old, "x.json").complete);
  nlohmann::json contradiction = whole;
  contradiction["schedules_incomplete"] = {"gpipe"};
  EXPECT_THROW((void)replay_from_json(contradiction, "x.json"), UsageError);
}

}  // namespace
}  // namespace pipebench
