// SPDX-License-Identifier: Apache-2.0
#include "report/csv_writer.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "core/error.h"

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

std::string slurp(const std::string& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A disk that fills up: a child process whose files cannot grow past 2000 bytes (RLIMIT_FSIZE with
// SIGXFSZ ignored, so write(2) fails with EFBIG). Before the writer checked its writes, the CSV was cut
// mid-record and nothing was said.
TEST(CsvWriter, OnAFullDiskTheFileHoldsWholeRecordsAndTheWriterThrows) {
  const std::string path = "/tmp/pipebench_csv_full_" + std::to_string(getpid()) + ".csv";
  const pid_t pid = fork();
  if (pid == 0) {
    signal(SIGXFSZ, SIG_IGN);
    const rlimit lim{2000, 2000};
    setrlimit(RLIMIT_FSIZE, &lim);
    try {
      CsvWriter w(path);
      ResultRecord r;
      r.op = "all_reduce";
      r.error = "a long, quoted error text that makes each record about two hundred bytes long";
      for (int i = 0; i < 100; ++i) w.add(r);
      _exit(1);
    } catch (const Error& e) {
      const std::string msg = e.what();
      _exit(msg.rfind("--csv " + path + ": cannot write line ", 0) == 0 ? 0 : 2);
    }
  }
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  ASSERT_EQ(WEXITSTATUS(status), 0);
  const std::string text = slurp(path);
  std::remove(path.c_str());
  ASSERT_GT(text.size(), csv_header().size());
  EXPECT_LE(text.size(), 2000u);
  EXPECT_EQ(text.back(), '\n');
  std::istringstream in(text);
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, csv_header());
  int records = 0;
  for (; std::getline(in, line); ++records) EXPECT_EQ(count_commas(line), count_commas(csv_header())) << line;
  EXPECT_GT(records, 0);
}

TEST(CsvWriter, AFifoIsRefusedAndLeftAlone) {
  const std::string path = "/tmp/pipebench_csv_fifo_" + std::to_string(getpid());
  ASSERT_EQ(mkfifo(path.c_str(), 0600), 0);
  std::string msg = "(no error)";
  try {
    CsvWriter w(path);
  } catch (const UsageError& e) {
    msg = e.what();
  }
  struct stat st {};
  const bool still_fifo = lstat(path.c_str(), &st) == 0 && S_ISFIFO(st.st_mode);
  std::remove(path.c_str());
  EXPECT_EQ(msg, "--csv " + path + ": a FIFO; outputs are written only to a regular file or a new path");
  EXPECT_TRUE(still_fifo);
}

}  // namespace
}  // namespace pipebench
