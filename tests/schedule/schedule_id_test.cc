// SPDX-License-Identifier: Apache-2.0
// One spelling of a schedule: keys, labels, --schedule values and the (name, v) of files.
#include "schedule/schedule_id.h"

#include <gtest/gtest.h>

#include "core/error.h"

namespace pipebench {
namespace {

TEST(ScheduleId, KeyLabelAndFileStemSpellOneScheduleThreeWays) {
  const ScheduleId one{"1f1b", 1}, inter{"interleaved", 4};
  EXPECT_EQ(one.key(), "1f1b");
  EXPECT_EQ(one.label(), "1f1b");
  EXPECT_EQ(one.file_stem(), "1f1b-v1");
  EXPECT_EQ(inter.key(), "interleaved:v4");
  EXPECT_EQ(inter.label(), "interleaved v=4");
  EXPECT_EQ(inter.file_stem(), "interleaved-v4");
  EXPECT_TRUE(one.is_baseline());
  EXPECT_FALSE(inter.is_baseline());
  EXPECT_NE(inter, (ScheduleId{"interleaved", 2}));
  EXPECT_LT((ScheduleId{"interleaved", 2}), inter);
}

TEST(ScheduleId, ASelectionPicksEveryScheduleOneGeneratorOrOneV) {
  const ScheduleId one{"1f1b", 1}, v2{"interleaved", 2}, v4{"interleaved", 4}, gpipe{"gpipe", 1};
  for (const char* all : {"", "all"}) {
    const ScheduleSelection s = parse_schedule_selection("--schedule", all);
    EXPECT_TRUE(s.all());
    EXPECT_TRUE(s.matches(one) && s.matches(v4) && s.matches(gpipe));
    EXPECT_EQ(s.text(), "all");
  }
  const ScheduleSelection inter = parse_schedule_selection("--schedule", "interleaved");
  EXPECT_TRUE(inter.matches(v2) && inter.matches(v4));
  EXPECT_FALSE(inter.matches(one) || inter.matches(gpipe));
  const ScheduleSelection only = parse_schedule_selection("--schedule", "interleaved:v4");
  EXPECT_TRUE(only.matches(v4));
  EXPECT_FALSE(only.matches(v2));
  EXPECT_EQ(only.text(), "interleaved:v4");
  EXPECT_TRUE(parse_schedule_selection("--schedule", "gpipe").matches(gpipe));
}

std::string usage_error(const std::string& text) {
  try {
    (void)parse_schedule_selection("--schedule", text);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

TEST(ScheduleId, BadSelectionsNameTheFlagAndTheValue) {
  EXPECT_EQ(usage_error("interleavd"),
            "--schedule: unknown schedule 'interleavd' (did you mean interleaved?) (one of: 1f1b, gpipe, interleaved, "
            "interleaved-zb, zb-2p, zb-h1, zb-h2, zbv)");
  EXPECT_NE(usage_error("1f1b:v2").find("--schedule 1f1b:v2: 1f1b runs one chunk per rank"), std::string::npos);
  for (const char* bad : {"interleaved:", "interleaved:v", "interleaved:v1", "interleaved:2", "interleaved:v2x",
                          "interleaved:v-3", "interleaved:v99999999999", "interleaved:v1025"}) {
    EXPECT_NE(usage_error(bad).find("expected interleaved:vN with N from 2 to 1024"), std::string::npos) << bad;
  }
}

TEST(ScheduleId, AFilesNameAndVAreCheckedAgainstTheGenerators) {
  EXPECT_EQ(schedule_id_problem("1f1b", 1), "");
  EXPECT_EQ(schedule_id_problem("interleaved", 8), "");
  EXPECT_EQ(schedule_id_problem("gpipe", 1), "");
  EXPECT_EQ(schedule_id_problem("zb", 1),
            "schedule 'zb' is none of 1f1b, gpipe, interleaved, interleaved-zb, zb-2p, zb-h1, zb-h2, zbv");
  EXPECT_EQ(schedule_id_problem("zbv", 2), "");
  EXPECT_EQ(schedule_id_problem("zbv", 4), "schedule zbv with v 4 (its v is 2)");
  EXPECT_NE(usage_error("zbv:v4").find("--schedule zbv:v4: zbv runs 2 chunks per rank (zbv:v2)"), std::string::npos);
  EXPECT_EQ(usage_error("zbv:v2"), "");
  EXPECT_EQ(schedule_id_problem("zb-h2", 1), "");
  EXPECT_EQ(schedule_id_problem("zb-h2", 2), "schedule zb-h2 with v 2 (its v is 1)");
  EXPECT_EQ(schedule_id_problem("interleaved-zb", 2), "");
  EXPECT_EQ(schedule_id_problem("interleaved-zb", 1), "schedule interleaved-zb with v 1 (v from 2 to 1024)");
  EXPECT_EQ(schedule_id_problem("1f1b", 2), "schedule 1f1b with v 2 (its v is 1)");
  EXPECT_EQ(schedule_id_problem("interleaved", 1), "schedule interleaved with v 1 (v from 2 to 1024)");
  EXPECT_NE(schedule_id_problem("interleaved", 4096), "");
}

}  // namespace
}  // namespace pipebench
