// SPDX-License-Identifier: Apache-2.0
// The record outputs, one row per format: the flags they give a command and the files they name.
#include "service/record_outputs.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

namespace pipebench {
namespace {

BenchOutputs parse_outputs(std::vector<std::string> args, bool with_one_op) {
  CLI::App app;
  BenchOutputs o;
  add_record_output_options(app, o, with_one_op);
  std::reverse(args.begin(), args.end());  // CLI11 takes the words last first
  app.parse(args);
  return o;
}

// Every row is an option of its command, bound to its own path; nccl-tests' JSON (one op) only where asked.
TEST(RecordOutputs, EveryRowIsAnOptionBoundToItsPath) {
  const BenchOutputs o = parse_outputs(
      {"--json", "a.json", "--csv", "a.csv", "-J", "nt.json", "--jsonl", "a.jsonl", "--prometheus", "a.prom"}, true);
  EXPECT_EQ(o.json_path, "a.json");
  EXPECT_EQ(o.csv_path, "a.csv");
  EXPECT_EQ(o.nccl_tests_json_path, "nt.json");
  EXPECT_EQ(o.jsonl_path, "a.jsonl");
  EXPECT_EQ(o.prometheus_path, "a.prom");
  EXPECT_EQ(parse_outputs({"--output_file", "nt.json"}, true).nccl_tests_json_path, "nt.json");
  EXPECT_EQ(parse_outputs({"--jsonl", "p.jsonl"}, false).jsonl_path, "p.jsonl");
  EXPECT_THROW((void)parse_outputs({"-J", "nt.json"}, false), CLI::ParseError);
}

// The files, by the flag that names them in messages, in the table's order; each flag once.
TEST(RecordOutputs, TheFilesAreEveryRowsFlagAndPath) {
  BenchOutputs o;
  o.csv_path = "r.csv";
  o.prometheus_path = "r.prom";
  const std::vector<FileArg> files = record_output_files(o);
  ASSERT_EQ(files.size(), record_outputs().size());
  std::set<std::string> flags;
  for (std::size_t i = 0; i < files.size(); ++i) {
    EXPECT_EQ(files[i].flag, record_outputs()[i].flag);
    EXPECT_TRUE(flags.insert(files[i].flag).second) << files[i].flag;
  }
  EXPECT_EQ(files[0].flag, "--json");
  EXPECT_EQ(files[0].path, "");
  EXPECT_EQ(files[1].path, "r.csv");
  EXPECT_EQ(files[4].flag, "--prometheus");
  EXPECT_EQ(files[4].path, "r.prom");
}

}  // namespace
}  // namespace pipebench
