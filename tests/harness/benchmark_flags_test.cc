// SPDX-License-Identifier: Apache-2.0
#include "harness/benchmark_flags.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "core/error.h"

namespace pipebench {
namespace {

std::string refusal(const std::vector<std::string>& args) {
  try {
    check_benchmark_flags(args);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "(accepted)";
}

TEST(BenchmarkFlags, OutputFlagsAreKeptFromTheLibrary) {
  const BenchmarkFlags f = parse_benchmark_flags({"--benchmark_filter=all_reduce", "--benchmark_out=x.csv",
                                                  "--benchmark_out_format=csv", "--benchmark_format=json"});
  EXPECT_EQ(f.library_args, (std::vector<std::string>{"--benchmark_filter=all_reduce", "--benchmark_format=json"}));
  EXPECT_EQ(f.out_path, "x.csv");
  EXPECT_EQ(f.out_format, "csv");
  EXPECT_EQ(f.display_format, "json");
  const BenchmarkFlags none = parse_benchmark_flags({});
  EXPECT_TRUE(none.out_path.empty());
  EXPECT_TRUE(none.display_format.empty());
  EXPECT_EQ(none.out_format, "json");
}

TEST(BenchmarkFlags, BadValuesNameTheFlagAndValue) {
  EXPECT_EQ(refusal({"--benchmark_format=xml"}), "--benchmark_format=xml: unknown format (one of console, json, csv)");
  EXPECT_EQ(refusal({"--benchmark_out=a.yaml", "--benchmark_out_format=yaml"}),
            "--benchmark_out_format=yaml: unknown format (one of console, json, csv)");
  EXPECT_EQ(refusal({"--benchmark_out_format=json"}),
            "--benchmark_out_format=json applies only with --benchmark_out=FILE");
  EXPECT_EQ(refusal({"--benchmark_out="}), "--benchmark_out=: empty file name");
  EXPECT_EQ(refusal({"--benchmark_time_unit=h"}), "--benchmark_time_unit=h: unknown time unit (one of ns, us, ms, s)");
  EXPECT_EQ(refusal({"--benchmark_color="}), "--benchmark_color=: empty value (one of auto, true, false)");
  EXPECT_NE(refusal({"--benchmark_repetitions=3"}).find("--benchmark_repetitions=3: each repetition"),
            std::string::npos);
  EXPECT_EQ(refusal({"--benchmark_time_unit=us", "--benchmark_color=false", "--benchmark_filter=x"}), "(accepted)");
}

TEST(BenchmarkFlags, OutPathFollowsTheOutputRules) {
  const auto dir = std::filesystem::temp_directory_path() / ("pipebench_gbflags_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  const std::string target = (dir / "t.json").string(), link = (dir / "l.json").string();
  std::ofstream(target) << "x";
  std::filesystem::create_symlink(target, link);
  EXPECT_NE(refusal({"--benchmark_out=" + link}).find("a symbolic link"), std::string::npos);
  EXPECT_NE(refusal({"--benchmark_out=" + dir.string()}).find("a directory"), std::string::npos);
  EXPECT_NE(refusal({"--benchmark_out=" + target + "/x.json"}).find("cannot be written"), std::string::npos);
  EXPECT_NE(refusal({"--benchmark_out=" + (dir / "none" / "x.json").string()}).find("no such folder"),
            std::string::npos);
  EXPECT_EQ(refusal({"--benchmark_out=" + target}), "(accepted)");
  EXPECT_EQ(refusal({"--benchmark_out=" + (dir / "new.json").string()}), "(accepted)");
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace pipebench
