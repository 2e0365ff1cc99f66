// SPDX-License-Identifier: Apache-2.0
#include "core/json_tree.h"

#include <gtest/gtest.h>

#include <string>

namespace pipebench {
namespace {

TEST(JsonTree, AWholeTextIsTheDocumentNlohmannJsonParses) {
  const std::string text =
      R"({"a": [1, 2.5, "x", null, true, {"b": {}}], "c": {"d": [[], [-3]]}, "e": 18446744073709551615})";
  const JsonTree t = parse_json_tree(text, DuplicateKeys::kStop);
  EXPECT_TRUE(t.whole);
  EXPECT_TRUE(t.error.empty()) << t.error;
  EXPECT_EQ(t.value, nlohmann::json::parse(text));
  const JsonTree scalar = parse_json_tree(" 7 ", DuplicateKeys::kStop);
  EXPECT_TRUE(scalar.whole);
  EXPECT_EQ(scalar.value, 7);
}

TEST(JsonTree, ACutTextKeepsTheCompleteValuesOfItsOpenArraysAndOutermostObject) {
  const JsonTree t = parse_json_tree(
      R"({"v": 3, "cfg": {"n": 1}, "results": [{"s": 8}, {"s": 16}, {"s": 32, "t": {"x")", DuplicateKeys::kStop);
  EXPECT_FALSE(t.whole);
  EXPECT_FALSE(t.error.empty());
  EXPECT_EQ(t.value, nlohmann::json::parse(R"({"v": 3, "cfg": {"n": 1}, "results": [{"s": 8}, {"s": 16}]})"))
      << t.value.dump();
  // An object cut inside the outermost one is left out whole.
  const JsonTree cut_config = parse_json_tree(R"({"v": 3, "cfg": {"n": 1, "m")", DuplicateKeys::kStop);
  EXPECT_EQ(cut_config.value, nlohmann::json::parse(R"({"v": 3})")) << cut_config.value.dump();
  // Text after a complete value is an error too; nothing is not a document.
  EXPECT_FALSE(parse_json_tree("{} {}", DuplicateKeys::kStop).whole);
  const JsonTree empty = parse_json_tree("", DuplicateKeys::kStop);
  EXPECT_FALSE(empty.whole);
  EXPECT_TRUE(empty.value.is_discarded());
}

TEST(JsonTree, AKeyGivenTwiceStopsTheParseOrTheLastWins) {
  const std::string text = R"({"a": {"t": 1.29, "u": 0, "t": -99}, "b": 2})";
  const JsonTree stopped = parse_json_tree(text, DuplicateKeys::kStop);
  EXPECT_FALSE(stopped.whole);
  EXPECT_EQ(stopped.duplicate_key, "\"t\"");
  const JsonTree last = parse_json_tree(text, DuplicateKeys::kLastWins);
  EXPECT_TRUE(last.whole);
  EXPECT_EQ(last.value["a"]["t"], -99);
  // The same key in two objects is no duplicate.
  EXPECT_TRUE(parse_json_tree(R"([{"t": 1}, {"t": 2, "x": {"t": 3}}])", DuplicateKeys::kStop).whole);
}

}  // namespace
}  // namespace pipebench
