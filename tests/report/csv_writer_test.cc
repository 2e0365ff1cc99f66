// SPDX-License-Identifier: Apache-2.0
#include "report/csv_writer.h"

#include <gtest/gtest.h>

namespace pipebench {
namespace {

int count_commas(const std::string& s) {
  int n = 0;
  bool quoted = false;
  for (char c : s) {
    if (c == '"') quoted = !quoted;
    if (c == ',' && !quoted) ++n;
  }
  return n;
}

TEST(CsvWriter, LinesHaveAsManyFieldsAsTheHeader) {
  ResultRecord r;
  r.op = "pair";
  r.error = "failed, \"badly\"";
  const std::string line = csv_line(r);
  EXPECT_EQ(count_commas(line), count_commas(csv_header()));
  EXPECT_NE(line.find("\"failed, \"\"badly\"\"\""), std::string::npos) << line;
}

TEST(CsvWriter, UncheckedWrongIsEmpty) {
  ResultRecord r;
  r.wrong = -1;
  EXPECT_NE(csv_line(r).find(",,"), std::string::npos);
}

}  // namespace
}  // namespace pipebench
