// SPDX-License-Identifier: Apache-2.0
// Fuzz target: a rules file as JSON (what report --rules reads without yaml-cpp, and what YAML gives):
// every rule key, comparison, size and severity check. Bad input must be a UsageError, never a crash.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "report/rule.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const nlohmann::json doc = nlohmann::json::parse(data, data + size, nullptr, false);
  if (doc.is_discarded()) return 0;  // not JSON: the JSON parser's job
  try {
    const auto rules = pipebench::parse_rules(doc, "fuzz");
    if (rules.empty() || rules.size() > pipebench::kMaxRules) std::abort();
    for (const auto& r : rules) {
      if (r.metric == nullptr || r.name.empty()) std::abort();
    }
  } catch (const pipebench::UsageError&) {
  }
  return 0;
}
