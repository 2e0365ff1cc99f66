// SPDX-License-Identifier: Apache-2.0
#include "trace/file_format.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>

#include "core/error.h"

namespace pipebench {
namespace {

std::string write_tmp(const std::string& name, const std::string& bytes) {
  const std::string path = "/tmp/pipebench_fmt_" + std::to_string(getpid()) + "_" + name;
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

std::string usage_message(const std::string& path) {
  try {
    (void)detect_trace_format(path);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

TEST(FileFormat, ByContentNotByName) {
  EXPECT_EQ(detect_trace_format(write_tmp("a.json", std::string("SQLite format 3\0rest", 20))), TraceFormat::kSqlite);
  EXPECT_EQ(detect_trace_format(write_tmp("b.sqlite", "\xEF\xBB\xBF  \n{\"traceEvents\": []}")), TraceFormat::kJson);
  EXPECT_EQ(detect_trace_format(write_tmp("c", "[{}]")), TraceFormat::kJson);
}

TEST(FileFormat, BadFilesSayWhat) {
  EXPECT_NE(usage_message("/nonexistent/x.sqlite").find("no such file"), std::string::npos);
  EXPECT_NE(usage_message(write_tmp("empty", "")).find("empty file"), std::string::npos);
  EXPECT_NE(usage_message(write_tmp("cut", "SQLite for")).find("truncated SQLite"), std::string::npos);
  EXPECT_NE(usage_message(write_tmp("text", "hello\n")).find("neither"), std::string::npos);
  EXPECT_NE(usage_message(write_tmp("ws", "   \n")).find("white space"), std::string::npos);
  EXPECT_NE(usage_message("/tmp").find("directory"), std::string::npos);
}

}  // namespace
}  // namespace pipebench
