// SPDX-License-Identifier: Apache-2.0
// Plain and gzip trace input, and a gzip file cut off mid-way (the Kineto reader reports the damage).
#include "trace/gzip_stream.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "core/error.h"
#include "trace/job_fixture.h"
#include "trace/kineto_reader.h"

namespace pipebench {
namespace {

std::string read_all(std::istream& in) {
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(GzipStream, PlainAndCompressedGiveTheSameText) {
  const std::string dir = testing::make_temp_dir("gz");
  const std::string text(300000, 'x');  // more than one buffer
  std::ofstream(dir + "/plain.json") << text;
  gzFile f = gzopen((dir + "/c.json.gz").c_str(), "wb");
  gzwrite(f, text.data(), static_cast<unsigned>(text.size()));
  gzclose(f);
  EXPECT_FALSE(is_gzip_file(dir + "/plain.json"));
  EXPECT_TRUE(is_gzip_file(dir + "/c.json.gz"));
  EXPECT_EQ(gzip_available(), true);
  EXPECT_EQ(read_all(*open_trace_input(dir + "/plain.json")), text);
  EXPECT_EQ(read_all(*open_trace_input(dir + "/c.json.gz")), text);
  std::filesystem::remove_all(dir);
}

TEST(GzipStream, CutOffGzipTraceIsReportedAsDamage) {
  const std::string dir = testing::make_temp_dir("gzcut");
  testing::JobFixture fx;
  const auto paths = fx.write(dir, "rank", true);
  std::ifstream in(paths[0], std::ios::binary);
  std::string bytes = read_all(in);
  bytes.resize(bytes.size() / 2);
  std::ofstream(dir + "/cut.json.gz", std::ios::binary) << bytes;
  const TraceProfile p = read_kineto_json(dir + "/cut.json.gz", TraceOptions{});
  EXPECT_FALSE(p.damage.empty());
  EXPECT_GT(p.kernel_rows, 0);
  EXPECT_LT(p.kernel_rows, 12);  // 4 kernels per iteration, 3 iterations: not all were read
  std::filesystem::remove_all(dir);
}

// A gzip file of a few tens of KiB that expands to one string (or one run of spaces, or one event) beyond
// its limit is refused with one line naming the file and the byte, after reading little more than the
// limit: the JSON reader never holds the whole string or run (a 2 MB file could expand to over 3 GB).
TEST(GzipStream, BombsAreRefusedAtTheirLimit) {
  const std::string dir = testing::make_temp_dir("gzbomb");
  const auto bomb = [&](const std::string& name, const std::string& head, char fill, std::int64_t bytes) {
    const std::string path = dir + "/" + name;
    gzFile f = gzopen(path.c_str(), "wb9");
    gzwrite(f, head.data(), static_cast<unsigned>(head.size()));
    const std::string block(1 << 20, fill);
    for (std::int64_t left = bytes; left > 0; left -= static_cast<std::int64_t>(block.size()))
      gzwrite(f, block.data(), static_cast<unsigned>(std::min<std::int64_t>(left, block.size())));
    gzwrite(f, "\"}]}", 4);
    gzclose(f);
    return path;
  };
  const auto error_of = [](const std::string& path) {
    try {
      (void)read_kineto_json(path, TraceOptions{});
    } catch (const UsageError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const std::int64_t over = kMaxTraceStringBytes + (1 << 20);
  const std::string string_bomb = bomb("s.json.gz", R"({"traceEvents":[{"ph":"X","name":")", 'A', over);
  EXPECT_LT(std::filesystem::file_size(string_bomb), std::uintmax_t{1} << 20);
  std::string e = error_of(string_bomb);
  EXPECT_EQ(e.rfind(string_bomb + ": a string longer than 16 MiB at byte ", 0), 0u) << e;
  const std::string space_bomb = bomb("w.json.gz", R"({"traceEvents":[)", ' ', over);
  e = error_of(space_bomb);
  EXPECT_EQ(e.rfind(space_bomb + ": more than 16 MiB of whitespace in a row at byte ", 0), 0u) << e;
  // An event of many short strings under distinct keys (a key given twice is refused on its own): each within
  // its limit, the event not.
  const std::string event_head = R"({"traceEvents":[{"ph":"X","args":{)";
  const std::string path = dir + "/e.json.gz";
  gzFile f = gzopen(path.c_str(), "wb9");
  gzwrite(f, event_head.data(), static_cast<unsigned>(event_head.size()));
  std::string many;
  for (std::int64_t done = 0, chunk = 0; done <= kMaxTraceEventBytes; done += static_cast<std::int64_t>(many.size())) {
    many.clear();
    for (int i = 0; i < 1000; ++i)
      many += "\"k" + std::to_string(chunk) + "_" + std::to_string(i) + "\":\"" + std::string(100, 'v') + "\",";
    ++chunk;
    gzwrite(f, many.data(), static_cast<unsigned>(many.size()));
  }
  gzwrite(f, "\"x\":1}}]}", 9);
  gzclose(f);
  e = error_of(path);
  EXPECT_EQ(e.rfind(path + ": an event (a value nested two levels deep) larger than 64 MiB at byte ", 0), 0u) << e;
  // Below the limits: every byte read as it is.
  const std::string fine = bomb("ok.json.gz", R"({"traceEvents":[{"ph":"i","name":")", 'A', 1 << 20);
  const auto in = open_trace_input(fine);
  std::int64_t bytes = 0;
  std::vector<char> buf(1 << 16);
  while (in->read(buf.data(), static_cast<std::streamsize>(buf.size())) || in->gcount() > 0) bytes += in->gcount();
  EXPECT_EQ(bytes, 34 + (1 << 20) + 4);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace pipebench
