// SPDX-License-Identifier: Apache-2.0
// Plain and gzip trace input, and a gzip file cut off mid-way (the Kineto reader reports the damage).
#include "trace/gzip_stream.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

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

}  // namespace
}  // namespace pipebench
