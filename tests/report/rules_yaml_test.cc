// SPDX-License-Identifier: Apache-2.0
#include "report/rules_yaml.h"

#include <gtest/gtest.h>

#include <string>

#include "core/error.h"

namespace pipebench {
namespace {

std::string error_of(const std::string& yaml) {
  try {
    (void)rules_yaml_to_json(yaml, "r.yaml");
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

#if PB_HAVE_YAMLCPP
TEST(RulesYaml, TypesScalarsAndExpandsAliasesLikeYaml) {
  const auto j = rules_yaml_to_json("s: &s [1M, 8]\nr:\n  - {a: *s, b: true, c: 0.5, d: '7', e: ~, 1: x}\n", "r.yaml");
  EXPECT_EQ(j["s"], nlohmann::json({"1M", 8}));
  EXPECT_EQ(j["r"][0]["a"], j["s"]);
  EXPECT_EQ(j["r"][0]["b"], true);
  EXPECT_EQ(j["r"][0]["c"], 0.5);
  EXPECT_EQ(j["r"][0]["d"], "7");  // quoted: a string
  EXPECT_TRUE(j["r"][0]["e"].is_null());
  EXPECT_EQ(j["r"][0]["1"], "x");                                                                   // a key is its text
  EXPECT_EQ(rules_yaml_to_json("{\"rules\": [1, 2]}", "r.json")["rules"], nlohmann::json({1, 2}));  // JSON is YAML
}

TEST(RulesYaml, RefusesCyclesBombsDepthDuplicatesAndBadText) {
  EXPECT_EQ(error_of("a: &a\n  b: *a\n"), "--rules r.yaml: line 2: alias refers to its own node (a cycle)");
  EXPECT_EQ(error_of("a: &a [*a]\n"), "--rules r.yaml: line 1: alias refers to its own node (a cycle)");
  std::string bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\n";
  for (char c = 'b'; c <= 'f'; ++c) {
    const char prev = static_cast<char>(c - 1);
    bomb += std::string(1, c) + ": &" + c + " [";
    for (int k = 0; k < 10; ++k) bomb += std::string(k ? ", *" : "*") + prev;
    bomb += "]\n";
  }
  EXPECT_NE(error_of(bomb).find("more than 100000 values"), std::string::npos) << error_of(bomb);
  EXPECT_NE(error_of(std::string(40, '[') + std::string(40, ']')).find("nested deeper than 32"), std::string::npos);
  EXPECT_EQ(error_of("a: 1\nb: 2\na: 3\n"), "--rules r.yaml: line 3: key 'a' given twice");
  EXPECT_EQ(error_of("x: \"\xFF\"\n"), "--rules r.yaml: line 1: not UTF-8 text");
  EXPECT_EQ(error_of("? [a]\n: 1\n"), "--rules r.yaml: line 1: a mapping key must be text");
  std::string aliases = "a: &a 1\nl: [";
  for (std::size_t i = 0; i <= kMaxRulesAliases; ++i) aliases += "*a, ";
  EXPECT_NE(error_of(aliases + "]\n").find("more than 1000 aliases"), std::string::npos);
  EXPECT_NE(error_of("a: [\n").find("--rules r.yaml: line"), std::string::npos);  // yaml-cpp's own syntax errors
}
#endif

}  // namespace
}  // namespace pipebench
