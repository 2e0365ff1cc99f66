// SPDX-License-Identifier: Apache-2.0
// JsonFields: a field's JSON type is checked before nlohmann's typed conversion, and every failure is one
// line naming the source and the field.
#include "io/json_fields.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/error.h"

namespace pipebench {
namespace {

using nlohmann::json;

std::string error_of(const std::function<void(const JsonFields&)>& read) {
  try {
    read(JsonFields("--plan p.json"));
  } catch (const UsageError& e) {
    return e.what();
  }
  return "(no error)";
}

const json kDoc = json::parse(R"({"m": {"i": 3, "big": 18446744073709551615, "wide": 4294967296, "t": true,
  "half": 2.5, "neg": -1, "s": "x", "null": null, "ints": [1, 2], "mixed": [1, "a"], "lists": [[1], [2, 2.5]]}})");
const json& m() { return kDoc["m"]; }

TEST(JsonFields, TypedValuesComeThroughTheirConversion) {
  const JsonFields f("--plan p.json");
  EXPECT_EQ(f.get<int>(m(), "m", "i"), 3);
  EXPECT_EQ(f.get<std::int64_t>(m(), "m", "wide"), std::int64_t{4294967296});
  EXPECT_EQ(f.get<double>(m(), "m", "half"), 2.5);
  EXPECT_EQ(f.get<double>(m(), "m", "i"), 3.0);  // an integer is a number
  EXPECT_TRUE(f.get<bool>(m(), "m", "t"));
  EXPECT_EQ(f.get<std::string>(m(), "m", "s"), "x");
  EXPECT_EQ(f.get<std::vector<int>>(m(), "m", "ints"), (std::vector<int>{1, 2}));
  EXPECT_EQ(f.get_in<int>(m(), "m", "i", 1, 3), 3);
  EXPECT_EQ(f.get_non_negative<std::int64_t>(m(), "m", "i"), 3);
}

// nlohmann would convert true to 1, 2.5 to 2 and 2^64-1 to -1: each is named instead.
TEST(JsonFields, AValueOfAnotherTypeOrOutOfRangeIsOneLineNamingTheField) {
  EXPECT_EQ(error_of([](const JsonFields& f) { (void)f.get<int>(m(), "m", "t"); }),
            "--plan p.json: \"m.t\" is not an integer");
  EXPECT_EQ(error_of([](const JsonFields& f) { (void)f.get<int>(m(), "m", "half"); }),
            "--plan p.json: \"m.half\" is not an integer");
  EXPECT_EQ(error_of([](const JsonFields& f) { (void)f.get<int>(m(), "m", "big"); }),
            "--plan p.json: \"m.big\" is not an integer");
  EXPECT_EQ(error_of([](const JsonFields& f) { (void)f.get<int>(m(), "m", "wide"); }),
            "--plan p.json: \"m.wide\" is out of range");
  EXPECT_EQ(error_of([](const JsonFields& f) { (void)f.get<std::int64_t>(m(), "m", "big"); }),
            "--plan p.json: \"m.big\" is not a 64-bit integer");
  EXPECT_EQ(error_of([](const JsonFields& f) { (void)f.get<bool>(m(), "m", "i"); }),
            "--plan p.json: \"m.i\" is not true or false");
  EXPECT_EQ(error_of([](const JsonFields& f) { (void)f.get<double>(m(), "m", "s"); }),
            "--plan p.json: \"m.s\" is not a number");
  EXPECT_EQ(error_of([](const JsonFields& f) { (void)f.get<std::string>(m(), "m", "i"); }),
            "--plan p.json: \"m.i\" is not a string");
  EXPECT_EQ(error_of([](const JsonFields& f) { (void)f.get<int>(m(), "m", "absent"); }),
            "--plan p.json: \"m.absent\" is missing");
  EXPECT_EQ(error_of([](const JsonFields& f) { (void)f.get_in<int>(m(), "m", "i", 4, 8); }),
            "--plan p.json: \"m.i\" is 3, outside [4, 8]");
  EXPECT_EQ(error_of([](const JsonFields& f) { (void)f.get_non_negative<int>(m(), "m", "neg"); }),
            "--plan p.json: \"m.neg\" is negative");
  EXPECT_EQ(error_of([](const JsonFields& f) { (void)f.get_non_negative<double>(m(), "m", "neg"); }),
            "--plan p.json: \"m.neg\" is not a finite number >= 0");
}

TEST(JsonFields, ListsNameTheirElement) {
  EXPECT_EQ(error_of([](const JsonFields& f) { (void)f.get<std::vector<int>>(m(), "m", "mixed"); }),
            "--plan p.json: \"m.mixed[1]\" is not an integer");
  EXPECT_EQ(error_of([](const JsonFields& f) { (void)f.get<std::vector<std::vector<int>>>(m(), "m", "lists"); }),
            "--plan p.json: \"m.lists[1][1]\" is not an integer");
  EXPECT_EQ(error_of([](const JsonFields& f) { (void)f.get<std::vector<int>>(m(), "m", "i"); }),
            "--plan p.json: \"m.i\" is not an array");
}

// An optional field keeps its default when absent (or null, where null stands for absent) and must have
// its type when present.
TEST(JsonFields, GetIfKeepsTheDefaultOnlyWhereTheFieldIsAbsent) {
  const JsonFields f("--plan p.json");
  std::string s = "default";
  f.get_if(m(), "m", "absent", s);
  EXPECT_EQ(s, "default");
  f.get_if(m(), "m", "null", s, true);
  EXPECT_EQ(s, "default");
  f.get_if(m(), "m", "s", s);
  EXPECT_EQ(s, "x");
  EXPECT_EQ(error_of([](const JsonFields& g) {
              std::string t;
              g.get_if(m(), "m", "null", t);
            }),
            "--plan p.json: \"m.null\" is not a string");
  EXPECT_EQ(error_of([](const JsonFields& g) {
              int i = 0;
              g.get_if(m(), "m", "half", i);
            }),
            "--plan p.json: \"m.half\" is not an integer");
}

}  // namespace
}  // namespace pipebench
