// SPDX-License-Identifier: Apache-2.0
// Numeric flags: finite and in range, one short line naming the flag; empty lists are bad input.
#include "cli/number_checks.h"

#include <gtest/gtest.h>

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "app/commands.h"
#include "cli/cli.h"
#include "core/error.h"

namespace pipebench {
namespace {

std::string usage_error(const std::vector<std::string>& args) {
  const CommandTable table = make_command_table();
  try {
    (void)parse_line(table, args);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "(no error)";
}

// The error names the flag and the value, fits on a short line (never DBL_MAX's 309 digits).
void expect_refused(const std::vector<std::string>& args, const std::string& flag, const std::string& value) {
  std::string line;
  for (const auto& a : args) line += a + " ";
  const std::string e = usage_error(args);
  EXPECT_NE(e, "(no error)") << line;
  EXPECT_NE(e.find(flag), std::string::npos) << line << ": " << e;
  EXPECT_NE(e.find(value), std::string::npos) << line << ": " << e;
  EXPECT_LT(e.size(), 200u) << line << ": " << e;
}

TEST(NumberChecks, NanInfAndOutOfRangeNumbersAreRefusedByEveryCommand) {
  expect_refused({"bench", "-T", "nan"}, "--timeout", "nan");
  expect_refused({"bench", "-T", "-1"}, "--timeout", "-1");
  expect_refused({"bench", "-T", "1e400"}, "--timeout", "not a finite number");
  expect_refused({"pairs", "-T", "inf"}, "--timeout", "inf");
  expect_refused({"run", "--point-seconds", "nan"}, "--point-seconds", "nan");
  expect_refused({"run", "--tflops", "nan"}, "--tflops", "nan");
  expect_refused({"run", "-T", "NaN"}, "--timeout", "NaN");
  expect_refused({"predict", "--plan", "p.json", "--tflops", "nan"}, "--tflops", "nan");
  expect_refused({"predict", "--plan", "p.json", "--comm-sm-slowdown", "nan"}, "--comm-sm-slowdown", "nan");
  expect_refused({"predict", "--plan", "p.json", "--link-latency-us", "nan"}, "--link-latency-us", "nan");
  expect_refused({"predict", "--plan", "p.json", "--link-gbps", "1e-300"}, "--link-gbps", "outside [0.001, 1e+06]");
  expect_refused({"predict", "--plan", "p.json", "--fwd-ms-per-layer", "0"}, "--fwd-ms-per-layer", "(0, 1e+06]");
  expect_refused({"predict", "--plan", "p.json", "--optimizer-ms", "-inf"}, "--optimizer-ms", "-inf");
  expect_refused({"replay", "--plan", "p.json", "-T", "1e300"}, "--timeout", "outside [0, 1e+06]");
  // A flag without a range of its own still refuses non-finite numbers.
  expect_refused({"replay", "--plan", "p.json", "--tflops", "nan"}, "--tflops", "not a finite number");
  // strtod reads hexadecimal floats; Python's float() and people do not.
  expect_refused({"predict", "--plan", "p.json", "--w-share", "0x1"}, "--w-share",
                 "0x1 is not a decimal number (hexadecimal is not read)");
  expect_refused({"predict", "--plan", "p.json", "--link-gbps", "-0X1p3"}, "--link-gbps", "-0X1p3 is not a decimal");
  expect_refused({"replay", "--plan", "p.json", "--tflops", "0x10"}, "--tflops", "0x10 is not a decimal number");
}

// A count is decimal or one line: not -n 0x10 as 16 nor -f 010 as 8 (as CLI11 and nccl-tests' strtol read
// them), and a binary literal is named as such, not "Value 0b11 not in range 0 to 16777216".
TEST(NumberChecks, IntegerFlagsAreDecimalWithoutALeadingZero) {
  expect_refused({"bench", "-n", "0x10"}, "--iters", "0x10 is not a decimal integer (hexadecimal");
  expect_refused({"bench", "-w", "0b11"}, "--warmup_iters", "0b11 is not a decimal integer (hexadecimal");
  expect_refused({"bench", "-f", "010"}, "--stepfactor", "010: a leading 0 (nccl-tests would read it as octal");
  expect_refused({"bench", "-n", "1e1"}, "--iters", "1e1 is not a decimal integer");
  expect_refused({"bench", "-n", "10abc"}, "--iters", "10abc is not a decimal integer");
  expect_refused({"replay", "--plan", "p.json", "--iterations", "0x3"}, "--iterations", "0x3 is not a decimal");
  EXPECT_EQ(usage_error({"bench", "-n", "16", "-w", "0", "-f", "+2", "-c", "-0"}).find("decimal"), std::string::npos);
  EXPECT_EQ(usage_error({"bench", "-b", "0x10"}),
            "-b: '0x10' is not a valid size (hexadecimal is not read; write it in decimal; use e.g. 8, 256K, 64M, 1G)");
  EXPECT_NE(usage_error({"bench", "-e", "1e3"}).find("an exponent is not read"), std::string::npos);
}

TEST(NumberChecks, ValidNumbersStillPass) {
  EXPECT_EQ(usage_error({"bench", "-T", "0"}), "(no error)");
  EXPECT_EQ(usage_error({"bench", "-T", "30.5"}), "(no error)");
  EXPECT_EQ(usage_error({"predict", "--plan", "p.json", "--link-gbps", "12.5", "--link-latency-us", "0"}),
            "(no error)");
}

TEST(NumberChecks, ValidatorsOnAPlainApp) {
  CLI::App app;
  double x = 0, y = 0;
  int n = 0;
  app.add_option("--x", x)->check(checks::in_range(1, 10));
  app.add_option("--y", y);
  app.add_option("--n", n);
  checks::require_finite_numbers(app);
  auto fails = [&](std::vector<std::string> words) {
    std::reverse(words.begin(), words.end());
    try {
      app.parse(words);
    } catch (const CLI::ParseError&) {
      return true;
    }
    return false;
  };
  EXPECT_FALSE(fails({"--x", "10", "--y", "-3.5", "--n", "4"}));
  EXPECT_TRUE(fails({"--x", "10.5"}));
  EXPECT_TRUE(fails({"--x", "nan"}));
  EXPECT_TRUE(fails({"--y", "nan"}));
  EXPECT_TRUE(fails({"--y", "-inf"}));
  EXPECT_TRUE(fails({"--y", "1e999"}));
}

// An empty value is refused before the list is read (cli/parse_errors.h); an empty name in a list after it.
TEST(EmptyLists, AnEmptyOpSizeOrTypeListIsBadInputNotTheDefault) {
  for (const char* flag : {"--op", "--sizes", "-d", "-o"})
    expect_refused({"bench", flag, ""}, flag, "the value is empty");
  expect_refused({"bench", "--op", ","}, "--op", "unknown op ''");
  expect_refused({"bench", "-d", ","}, "-d", "unknown data type ''");
  expect_refused({"bench", "-o", ","}, "-o", "unknown reduction ''");
}

// A switch takes no value, so the word after it is the next flag, and an empty value there is refused as
// anywhere else.
TEST(EmptyValues, AnEmptyValueAfterASwitchIsRefusedLikeAnyOther) {
  for (const char* flag : {"--json", "--csv", "--jsonl", "--prometheus", "-J"}) {
    expect_refused({"bench", "--quiet", flag, ""}, flag, "the value is empty");
    expect_refused({"bench", flag, "", "--quiet"}, flag, "the value is empty");
  }
  expect_refused({"predict", "--shared-path", "--json", ""}, "--json", "the value is empty");
  for (const char* flag : {"--json", "--chrome-trace", "--plan", "--nvtx-prefix"})
    expect_refused({"trace", "x.sqlite", "--demangled", flag, ""}, flag, "the value is empty");
  // A switch followed by a flag with a real value parses as before.
  EXPECT_EQ(usage_error({"bench", "--quiet", "--json", "r.json"}), "(no error)");
}

TEST(RunArguments, MegatronArgumentsAreCheckedBeforeAnythingRuns) {
  expect_refused({"run", "--", "--num-layers", "0"}, "--num-layers", "0");
  const std::string missing = usage_error({"run", "--", "--num-layers", "4"});
  EXPECT_NE(missing.find("missing --hidden-size"), std::string::npos) << missing;
  const std::string rule = usage_error({"run",
                                        "--",
                                        "--num-layers",
                                        "6",
                                        "--hidden-size",
                                        "64",
                                        "--num-attention-heads",
                                        "4",
                                        "--seq-length",
                                        "32",
                                        "--max-position-embeddings",
                                        "32",
                                        "--micro-batch-size",
                                        "1",
                                        "--global-batch-size",
                                        "8",
                                        "--vocab-size",
                                        "100",
                                        "--pipeline-model-parallel-size",
                                        "4"});
  EXPECT_NE(rule.find("num_layers 6 is not divisible by pipeline size 4"), std::string::npos) << rule;
}

}  // namespace
}  // namespace pipebench
