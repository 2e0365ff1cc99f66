// SPDX-License-Identifier: Apache-2.0
// PyTorch pipelining's action CSV: what csv.writer writes is read, every other cell is named.
#include "schedule/action_csv.h"

#include <gtest/gtest.h>

#include <string>

#include "core/error.h"

namespace pipebench {
namespace {

std::string error_of(std::string_view text) {
  try {
    (void)parse_action_csv(text, "--schedule-file s.csv");
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

TEST(ActionCsv, ReadsEveryActionTypeWithStageAndMicrobatch) {
  const auto rows = parse_action_csv("0F3,1I2,1W2,12B10\n0SEND_F3,1RECV_F3,1SEND_B2,0RECV_B2\n", "f");
  ASSERT_EQ(rows.size(), 2U);
  ASSERT_EQ(rows[0].size(), 4U);
  EXPECT_EQ(rows[0][0].type, ActionType::kForward);
  EXPECT_EQ(rows[0][0].stage, 0);
  EXPECT_EQ(rows[0][0].microbatch, 3);
  EXPECT_EQ(rows[0][1].type, ActionType::kBackwardInput);
  EXPECT_EQ(rows[0][2].type, ActionType::kBackwardWeight);
  EXPECT_EQ(rows[0][3].type, ActionType::kFullBackward);
  EXPECT_EQ(rows[0][3].stage, 12);
  EXPECT_EQ(rows[0][3].microbatch, 10);
  EXPECT_EQ(rows[1][0].type, ActionType::kSendF);
  EXPECT_EQ(rows[1][1].type, ActionType::kRecvF);
  EXPECT_EQ(rows[1][2].type, ActionType::kSendB);
  EXPECT_EQ(rows[1][3].type, ActionType::kRecvB);
  EXPECT_EQ(rows[1][3].row, 2);
  EXPECT_EQ(rows[1][3].cell, 4);
}

// csv.writer: CRLF line ends, None as an empty cell, a byte order mark from some editors, quotes.
TEST(ActionCsv, ReadsWhatPythonsCsvWriterWrites) {
  const auto rows = parse_action_csv(
      "\xEF\xBB\xBF"
      "0F0,,0B0\r\n,1F0, \"1B0\"\r\n\r\n",
      "f");
  ASSERT_EQ(rows.size(), 2U);  // the blank line at the end is no rank
  ASSERT_EQ(rows[0].size(), 2U);
  EXPECT_EQ(rows[0][1].cell, 3);
  ASSERT_EQ(rows[1].size(), 2U);
  EXPECT_EQ(rows[1][1].type, ActionType::kFullBackward);
  EXPECT_EQ(rows[1][1].text, "1B0");
}

// A blank line before the last row would shift every later row one rank: refused, naming the first such row.
TEST(ActionCsv, ABlankRowBeforeTheLastIsRefusedNamingIt) {
  const auto message = [](const std::string& text) {
    try {
      (void)parse_action_csv(text, "f");
    } catch (const pipebench::UsageError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message("0F0\n\n1F0\n"),
            "f: row 2 has no action (a blank line?); each row up to the last is one pipeline rank's actions");
  EXPECT_EQ(message("\r\n0F0\r\n1F0\r\n").rfind("f: row 1 has no action", 0), 0U);
  EXPECT_EQ(message("0F0\n , ,\n1F0\n").rfind("f: row 2 has no action", 0), 0U);  // only empty cells
  EXPECT_EQ(message("0F0\n1F0\n\n \n"), "no error");                              // blank lines at the end
  EXPECT_EQ(message("0F0\n" + std::string(1000, '\n') + "1F0\n").rfind("f: row 2 has no action", 0), 0U);
}

// Blank lines after the last row are counted, not kept: a file of millions of them is the rows before them.
TEST(ActionCsv, MillionsOfTrailingBlankLinesAreNoRanks) {
  const std::string text = "0F0,0B0\n1F0,1B0\n" + std::string(4u << 20, '\n') + std::string(1u << 20, ',');
  const auto rows = parse_action_csv(text, "f");
  ASSERT_EQ(rows.size(), 2U);
  EXPECT_EQ(rows[1][1].text, "1B0");
}

TEST(ActionCsv, ReadsFsdpActionsAndOverlappedPairs) {
  const auto rows = parse_action_csv("0UNSHARD,(0F1;3B0)OVERLAP_F_B,0RESHARD,0REDUCE_GRAD\n", "f");
  ASSERT_EQ(rows.size(), 1U);
  ASSERT_EQ(rows[0].size(), 5U);
  EXPECT_EQ(rows[0][0].type, ActionType::kUnshard);
  EXPECT_EQ(rows[0][0].microbatch, -1);
  EXPECT_EQ(rows[0][1].type, ActionType::kForward);
  EXPECT_EQ(rows[0][2].type, ActionType::kFullBackward);
  EXPECT_EQ(rows[0][2].stage, 3);
  EXPECT_EQ(rows[0][2].cell, 2);  // both from the one cell
  EXPECT_EQ(rows[0][4].type, ActionType::kReduceGrad);
}

TEST(ActionCsv, NamesTheRowAndCellOfAnythingElse) {
  const std::string known = "not an action (expected [stage][type][microbatch]";
  EXPECT_EQ(error_of("0F0,0X1\n").rfind("--schedule-file s.csv: row 1, cell 2 '0X1': " + known, 0), 0U)
      << error_of("0F0,0X1\n");
  EXPECT_NE(error_of("0F0\n0F0,F1\n").find("row 2, cell 2 'F1': not an action"), std::string::npos);
  EXPECT_NE(error_of("0F\n").find("row 1, cell 1 '0F': not an action"), std::string::npos);  // no microbatch
  EXPECT_NE(error_of("0F1x\n").find("'0F1x': not an action"), std::string::npos);            // trailing text
  EXPECT_NE(error_of("0UNSHARD3\n").find("'0UNSHARD3': not an action"), std::string::npos);  // FSDP's take none
  EXPECT_NE(error_of("0SEND_X1\n").find("'0SEND_X1': not an action"), std::string::npos);
  EXPECT_NE(error_of("-1F0\n").find("'-1F0': not an action"), std::string::npos);
  EXPECT_NE(error_of("99999999999999999999F0\n").find("not an action"), std::string::npos);    // overflow
  EXPECT_NE(error_of("0F99999999\n").find("'0F99999999': not an action"), std::string::npos);  // > kMax
  EXPECT_NE(error_of("(0F1;)OVERLAP_F_B\n").find("not an action"), std::string::npos);
  EXPECT_NE(error_of("(0F1;1B0)OVERLAP\n").find("not an action"), std::string::npos);
}

}  // namespace
}  // namespace pipebench
