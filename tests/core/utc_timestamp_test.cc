// SPDX-License-Identifier: Apache-2.0
// utc_timestamp: now, in UTC, as ISO 8601 by default and in any strftime format on request.
#include "core/utc_timestamp.h"

#include <gtest/gtest.h>

#include <ctime>
#include <regex>
#include <string>

namespace pipebench {
namespace {

TEST(UtcTimestamp, IsNowInUtcAsIsoByDefaultAndInTheGivenFormatOtherwise) {
  const std::time_t before = std::time(nullptr);
  const std::string iso = utc_timestamp();
  const std::time_t after = std::time(nullptr);
  ASSERT_TRUE(std::regex_match(iso, std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)"))) << iso;
  // Read back as UTC (timegm), it is the moment it was taken: local time would be off by the zone's offset.
  std::tm tm{};
  ASSERT_NE(strptime(iso.c_str(), "%Y-%m-%dT%H:%M:%SZ", &tm), nullptr) << iso;
  const std::time_t read = timegm(&tm);
  EXPECT_GE(read, before) << iso;
  EXPECT_LE(read, after) << iso;
  const std::string spaced = utc_timestamp("%Y-%m-%d %H:%M:%S");
  EXPECT_TRUE(std::regex_match(spaced, std::regex(R"(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)"))) << spaced;
  EXPECT_EQ(utc_timestamp(""), "");
}

}  // namespace
}  // namespace pipebench
