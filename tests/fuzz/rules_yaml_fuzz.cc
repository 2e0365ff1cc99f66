// SPDX-License-Identifier: Apache-2.0
// Fuzz target: a rules file as YAML (report --rules): the event-stream reader with its limits on values,
// depth and aliases, then the rule checks. Bad input must be a UsageError, never a crash, a stack
// overflow (cyclic or deep aliases) or a memory blow-up (aliases expanding to billions of values).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "core/error.h"
#include "core/utf8.h"
#include "report/rule.h"
#include "report/rules_yaml.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const nlohmann::json doc = pipebench::rules_yaml_to_json(text, "fuzz");
    // What the reader returns is bounded and UTF-8: dumping it must not throw.
    (void)doc.dump();
    const auto rules = pipebench::parse_rules(doc, "fuzz");
    if (rules.empty() || rules.size() > pipebench::kMaxRules) std::abort();
  } catch (const pipebench::UsageError&) {
  }
  return 0;
}
