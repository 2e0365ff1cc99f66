// SPDX-License-Identifier: Apache-2.0
#include "report/prometheus_writer.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace pipebench {
namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

ResultRecord rec(std::uint64_t size, double busbw) {
  ResultRecord r;
  r.op = "all_reduce";
  r.dtype = "float";
  r.redop = "sum";
  r.size_bytes = size;
  r.nranks = 2;
  r.ranks = {0, 1};
  r.time_us = 12.5;
  r.busbw_gbps = busbw;
  r.wrong = 0;
  r.link_class = "NV18";
  return r;
}

TEST(PrometheusWriter, LabelValuesAreEscaped) { EXPECT_EQ(prometheus_label_value("a\"b\\c\nd"), "a\\\"b\\\\c\\nd"); }

// The exposition format is UTF-8: a byte that is not (SLURM_JOB_ID is whatever the environment holds) is U+FFFD.
TEST(PrometheusWriter, BytesThatAreNotUtf8AreReplaced) {
  EXPECT_EQ(prometheus_label_value("ab\xff"), "ab\xEF\xBF\xBD");
  const std::string path = "/tmp/pb_prom_utf8_" + std::to_string(getpid()) + ".prom";
  setenv("SLURM_JOB_ID", "ab\xff", 1);
  {
    PrometheusWriter w(path, RankDirectory({}));
    w.add(rec(8, 1.0));
  }
  unsetenv("SLURM_JOB_ID");
  const std::string text = slurp(path);
  EXPECT_NE(text.find("slurm_job_id=\"ab\xEF\xBF\xBD\""), std::string::npos) << text;
  EXPECT_EQ(text.find('\xff'), std::string::npos) << text;
  std::remove(path.c_str());
}

// After every record the file is the whole exposition: each family once, one sample per point (a point
// measured again replaces its sample), slurm_job_id only where set.
TEST(PrometheusWriter, OneSamplePerPointInEveryFamily) {
  const std::string path = "/tmp/pb_prom_" + std::to_string(getpid()) + ".prom";
  setenv("SLURM_JOB_ID", "4711", 1);
  const std::vector<SystemDevice> devices = {{{0, "n1", "0000:18:00.0"}, 12, 0, "NVIDIA H200"},
                                             {{1, "n1", "0000:3b:00.0"}, 12, 1, "NVIDIA H200"}};
  {
    PrometheusWriter w(path, RankDirectory(devices));
    EXPECT_EQ(count(slurp(path), "# TYPE"), 3u);
    w.add(rec(8, 1.0));
    w.add(rec(1024, 2.0));
    w.add(rec(8, 3.0));  // -N: the same point again
    auto unchecked = rec(64, 4.0);
    unchecked.wrong = -1;
    w.add(unchecked);
    auto failed = rec(128, 0);
    failed.error = "boom";
    w.add(failed);
  }
  unsetenv("SLURM_JOB_ID");
  const std::string text = slurp(path);
  EXPECT_EQ(count(text, "pipebench_busbw_gbps{"), 3u) << text;
  EXPECT_EQ(count(text, "pipebench_wrong_values_total{"), 2u) << text;
  EXPECT_EQ(count(text, "# TYPE pipebench_wrong_values_total counter"), 1u) << text;
  EXPECT_NE(
      text.find("pipebench_busbw_gbps{host=\"n1\",gpu=\"NVIDIA H200\",op=\"all_reduce\",dtype=\"float\","
                "redop=\"sum\",size_bytes=\"8\",in_place=\"false\",nranks=\"2\",ranks=\"0,1\",link_class=\"NV18\","
                "slurm_job_id=\"4711\"} 3\n"),
      std::string::npos)
      << text;
  EXPECT_NE(text.find("pipebench_time_us{"), std::string::npos);
  EXPECT_EQ(text.find("size_bytes=\"128\""), std::string::npos) << text;
  std::remove(path.c_str());
}

}  // namespace
}  // namespace pipebench
