// SPDX-License-Identifier: Apache-2.0
#include "trace/json_event_stream.h"

#include <gtest/gtest.h>

#include <sstream>
#include <vector>

namespace pipebench {
namespace {

JsonStreamResult stream(const std::string& text, std::vector<nlohmann::json>* events) {
  std::istringstream in(text);
  return stream_json_events(in, [&](const nlohmann::json& e) { events->push_back(e); });
}

TEST(JsonEventStream, HandsOverEachEventAndKeepsTheOtherMembers) {
  std::vector<nlohmann::json> ev;
  const auto r = stream(R"({"schemaVersion": 1, "distributedInfo": {"rank": 3, "pg": [1, [2]]},
      "traceEvents": [{"ph": "X", "args": {"grid": [1, 2, 3], "x": {"y": null}}}, 7, [1, 2], {"ph": "M"}],
      "traceName": "t"})",
                        &ev);
  EXPECT_EQ(r.top, JsonStreamResult::Top::kObject);
  EXPECT_TRUE(r.saw_events);
  EXPECT_TRUE(r.error.empty());
  ASSERT_EQ(ev.size(), 2u);
  EXPECT_EQ(ev[0]["args"]["grid"][2], 3);
  EXPECT_TRUE(ev[0]["args"]["x"]["y"].is_null());
  EXPECT_EQ(ev[1]["ph"], "M");
  EXPECT_EQ(r.events, 2);
  EXPECT_EQ(r.non_objects, 2);
  EXPECT_EQ(r.meta["schemaVersion"], 1);
  EXPECT_EQ(r.meta["distributedInfo"]["pg"][1][0], 2);
  EXPECT_EQ(r.meta["traceName"], "t");
  EXPECT_FALSE(r.meta.contains("traceEvents"));
}

TEST(JsonEventStream, BareArrayCutOffAndNotATrace) {
  std::vector<nlohmann::json> ev;
  auto r = stream(R"([{"a": 1}, {"b": 2}])", &ev);
  EXPECT_EQ(r.top, JsonStreamResult::Top::kArray);
  EXPECT_EQ(ev.size(), 2u);

  ev.clear();
  r = stream(R"({"traceEvents": [{"a": 1}, {"b": 2}, {"c": )", &ev);
  EXPECT_FALSE(r.error.empty());
  EXPECT_EQ(ev.size(), 2u);  // what came before the cut

  ev.clear();
  r = stream(R"({"a": {"traceEvents": []}})", &ev);
  EXPECT_FALSE(r.saw_events);  // only a top-level traceEvents counts
  r = stream(R"("text")", &ev);
  EXPECT_EQ(r.top, JsonStreamResult::Top::kOther);
  r = stream("not json", &ev);
  EXPECT_FALSE(r.error.empty());
}

// A key twice in one object (an event's "ts", a nested "args" key, a top-level member) stops the stream with
// the key named: which of the two values a reader keeps is not JSON's to say.
TEST(JsonEventStream, AKeyGivenTwiceInOneObjectStopsTheStream) {
  std::vector<nlohmann::json> ev;
  auto r = stream(R"({"traceEvents": [{"ts": 1}, {"ph": "X", "ts": 1000.0, "ts": 5, "dur": 3}]})", &ev);
  EXPECT_EQ(r.duplicate_key, "key \"ts\" given twice in one object of event 2");
  EXPECT_EQ(ev.size(), 1u);
  ev.clear();
  r = stream(R"({"traceEvents": [{"args": {"device": 0, "device": 1}}]})", &ev);
  EXPECT_EQ(r.duplicate_key, "key \"device\" given twice in one object of event 1");
  r = stream(R"({"distributedInfo": {"rank": 0}, "traceEvents": [], "distributedInfo": {"rank": 1}})", &ev);
  EXPECT_EQ(r.duplicate_key, "key \"distributedInfo\" given twice in one object");
  r = stream(R"({"distributedInfo": {"rank": 0, "rank": 1}, "traceEvents": []})", &ev);
  EXPECT_EQ(r.duplicate_key, "key \"rank\" given twice in one object");
  // The same key in two objects is no duplicate.
  ev.clear();
  r = stream(R"({"traceEvents": [{"ts": 1, "args": {"ts": 2}}, {"ts": 3}]})", &ev);
  EXPECT_EQ(r.duplicate_key, "");
  EXPECT_EQ(ev.size(), 2u);
}

}  // namespace
}  // namespace pipebench
