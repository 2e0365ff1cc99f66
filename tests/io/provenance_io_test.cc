// SPDX-License-Identifier: Apache-2.0
// Every output file records the command line that wrote it; files without it still load.
#include "io/provenance_io.h"

#include <gtest/gtest.h>

#include "core/command_line.h"
#include "core/error.h"
#include "io/prediction_io.h"
#include "io/replay_io.h"

namespace pipebench {
namespace {

TEST(ProvenanceIo, WritersRecordTheRedactedCommandLine) {
  nlohmann::json doc = {{"tool_version", "0.0.9"}};
  add_provenance(doc);
  EXPECT_EQ(doc["tool_version"], "0.0.9");  // a file's own version is kept
  EXPECT_EQ(doc["command_line"], this_command_line());
  EXPECT_FALSE(this_command_line().empty());
  nlohmann::json fresh = nlohmann::json::object();
  add_provenance(fresh);
  EXPECT_TRUE(fresh.contains("tool_version"));
  // The schema writers carry it.
  EXPECT_EQ(prediction_to_json(Prediction{})["command_line"], this_command_line());
  EXPECT_EQ(replay_to_json(ReplayResult{}, "plan.json")["command_line"], this_command_line());
}

TEST(ProvenanceIo, ReadsWhatIsThereAndNamesAMistypedField) {
  const Provenance p = provenance_from_json(
      {{"tool_version", "0.1.0"}, {"created_utc", "2026-12-03T00:00:00Z"}, {"command_line", "pipebench topo"}}, "t");
  EXPECT_EQ(p.tool_version, "0.1.0");
  EXPECT_EQ(p.created_utc, "2026-12-03T00:00:00Z");
  EXPECT_EQ(p.command_line, "pipebench topo");
  const Provenance old = provenance_from_json({{"schema", "pipebench.prediction/1"}}, "t");
  EXPECT_TRUE(old.command_line.empty());
  EXPECT_TRUE(old.tool_version.empty());
  try {
    (void)provenance_from_json({{"command_line", 3}}, "INPUT p.json");
    ADD_FAILURE() << "a number was read as a command line";
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what()), "INPUT p.json: \"command_line\" is not a string");
  }
}

}  // namespace
}  // namespace pipebench
