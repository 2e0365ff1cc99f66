// SPDX-License-Identifier: Apache-2.0
#include "report/json_array_file.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/error.h"

namespace pipebench {
namespace {

std::string temp_path(const std::string& name) {
  return "/tmp/pipebench_array_" + std::to_string(getpid()) + "_" + name;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// For either indent, the array is found by its top-level key (a nested key of the same name is not it),
// the file parses after every element with the keys after the array intact, and the final layout is
// exactly the document's dump(indent).
TEST(JsonArrayFile, FinalLayoutIsDumpOfTheIndentAndOnlyTheTopLevelKeyIsTheArray) {
  for (const int indent : {1, 2}) {
    const std::string path = temp_path("layout" + std::to_string(indent) + ".json");
    nlohmann::ordered_json doc = {
        {"a", {{"rows", "not this one"}}}, {"rows", nlohmann::ordered_json::array()}, {"z", 1}};
    {
      JsonArrayFile file("--x", path, "rows", indent, [&] { return doc.dump(indent) + "\n"; });
      for (int i = 0; i < 20; ++i) {
        file.append(nlohmann::ordered_json({{"i", i}, {"s", "\"}]{[\\n"}}).dump());
        const auto now = nlohmann::json::parse(slurp(path));
        ASSERT_EQ(now["rows"].size(), static_cast<std::size_t>(i + 1));
        ASSERT_EQ(now["z"], 1);
        ASSERT_EQ(now["a"]["rows"], "not this one");
      }
      doc["z"] = 2;
      file.rewrite(true);
    }
    const std::string text = slurp(path);
    const auto back = nlohmann::ordered_json::parse(text);
    EXPECT_EQ(text, back.dump(indent) + "\n");
    EXPECT_EQ(back["rows"][19]["i"], 19);
    EXPECT_EQ(back["rows"][3]["s"], "\"}]{[\\n");
    EXPECT_EQ(back["z"], 2);
    std::remove(path.c_str());
  }
}

// Two writers of one file in one process are refused as two processes are (core/output_lock.h).
TEST(JsonArrayFile, SecondWriterOfTheSameFileIsRefused) {
  const std::string path = temp_path("twice.json");
  const auto shell = [] { return nlohmann::json({{"rows", nlohmann::json::array()}}).dump(1) + "\n"; };
  {
    JsonArrayFile first("-J", path, "rows", 1, shell);
    first.append("{\"i\":1}");
    EXPECT_THROW(JsonArrayFile("-J", path, "rows", 1, shell), UsageError);
    EXPECT_EQ(nlohmann::json::parse(slurp(path))["rows"].size(), 1u);  // the first writer's file is untouched
  }
  std::remove(path.c_str());  // once the first writer has closed it (its close writes the file's end)
}

}  // namespace
}  // namespace pipebench
