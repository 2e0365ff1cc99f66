// SPDX-License-Identifier: Apache-2.0
#include "harness/progress.h"

#include <gtest/gtest.h>

#include <sstream>
#include <string>

namespace pipebench {
namespace {

int count(const std::string& s, const std::string& needle) {
  int n = 0;
  for (std::size_t at = s.find(needle); at != std::string::npos; at = s.find(needle, at + 1)) ++n;
  return n;
}

TEST(Progress, DurationsReadLikeAClock) {
  EXPECT_EQ(Progress::duration_text(0.4), "0 s");
  EXPECT_EQ(Progress::duration_text(89), "89 s");
  EXPECT_EQ(Progress::duration_text(185), "3 min 05 s");
  EXPECT_EQ(Progress::duration_text(7620), "2 h 07 min");
  EXPECT_EQ(Progress::duration_text(-5), "0 s");
}

// Not a terminal: a plain line at most every ten seconds, with the time left from the mean so far.
TEST(Progress, PlainLinesAtMostEveryTenSecondsWithTheTimeLeft) {
  std::ostringstream out;
  double now = 100;
  Progress p(out, false, "point", 100, [&] { return now; });
  for (int i = 1; i <= 9; ++i) {
    now += 2;  // 2 s per point
    p.update(i, "all_reduce 8 B");
  }
  // 18 s in, 9 points: one line, at point 5 (10 s in): 5 points took 10 s, 95 left take 190 s.
  EXPECT_EQ(count(out.str(), "\n"), 1) << out.str();
  EXPECT_EQ(out.str(), "pipebench: point 5 of 100 (all_reduce 8 B), about 3 min 10 s left\n");
  EXPECT_EQ(out.str().find('\r'), std::string::npos);
  for (int i = 10; i <= 100; ++i) {
    now += 2;
    p.update(i, "");
  }
  EXPECT_EQ(count(out.str(), "\n"), 20) << out.str();  // every 5th point (10 s) and the last
  EXPECT_NE(out.str().find("pipebench: point 100 of 100, done in 3 min 20 s\n"), std::string::npos) << out.str();
}

TEST(Progress, ShortWorkOffATerminalPrintsNothing) {
  std::ostringstream out;
  double now = 0;
  Progress p(out, false, "point", 3, [&] { return now; });
  for (int i = 1; i <= 3; ++i) {
    now += 1;
    p.update(i, "x");
  }
  EXPECT_EQ(out.str(), "");
}

// A terminal: one line redrawn in place (carriage return, erase to the end of the line), erased by clear().
TEST(Progress, OnATerminalOneLineRedrawsAndIsErased) {
  std::ostringstream out;
  double now = 0;
  {
    Progress p(out, true, "iteration", 4, [&] { return now; });
    now = 1;
    p.update(1, "schedule 1f1b");
    EXPECT_EQ(out.str(), "\r\x1b[Kpipebench: iteration 1 of 4 (schedule 1f1b), about 3 s left");
    now = 1.01;
    p.update(2, "schedule 1f1b");  // within 0.1 s of the last draw: not redrawn
    EXPECT_EQ(count(out.str(), "pipebench:"), 1);
    p.clear();
    EXPECT_EQ(out.str().substr(out.str().size() - 4), "\r\x1b[K");
    p.update(3, "schedule 1f1b");  // erased: drawn again at once
    EXPECT_EQ(count(out.str(), "pipebench:"), 2);
    now = 4;
    p.update(4, "schedule 1f1b");
    EXPECT_NE(out.str().find("iteration 4 of 4 (schedule 1f1b), done in 4 s"), std::string::npos);
    EXPECT_EQ(out.str().find('\n'), std::string::npos);  // never a new line on a terminal
  }
  EXPECT_EQ(out.str().substr(out.str().size() - 4), "\r\x1b[K");  // the destructor erases the line
}

class Recorder final : public RecordSink {
 public:
  explicit Recorder(std::ostream& out) : out_(out) {}
  void add(const ResultRecord& r) override { out_ << "row " << r.size_bytes << "\n"; }
  void end_op() override { out_ << "end\n"; }

 private:
  std::ostream& out_;
};

// The sink erases the terminal line before the next sink prints, then draws it again below.
TEST(ProgressSink, CountsRecordsAndKeepsTheLineOutOfTheTable) {
  std::ostringstream out;
  double now = 0;
  Recorder table(out);
  Progress p(out, true, "point", 2, [&] { return now; });
  ProgressSink sink(table, p);
  ResultRecord r;
  r.op = "all_reduce";
  r.size_bytes = 8;
  sink.add(r);
  now = 1;
  r.size_bytes = 16;
  sink.add(r);
  sink.end_op();
  EXPECT_EQ(out.str(),
            "row 8\n\r\x1b[Kpipebench: point 1 of 2 (all_reduce 8 B), about 0 s left\r\x1b[K"
            "row 16\n\r\x1b[Kpipebench: point 2 of 2 (all_reduce 16 B), done in 1 s\r\x1b[Kend\n");
}

}  // namespace
}  // namespace pipebench
