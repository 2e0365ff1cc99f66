// SPDX-License-Identifier: Apache-2.0
// Where a pipebench file came from: the top-level `tool_version`, `created_utc` and `command_line` that
// every output file carries (results, prediction, replay, plan, topology; results/README.md). The
// command line is redacted like the environment (core/command_line.h). Files written before a field was
// recorded still load: a missing field reads as "".
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace pipebench {

struct Provenance {
  std::string tool_version, created_utc, command_line;
};

// Adds tool_version (where absent) and this process's redacted command line to a file's top level.
void add_provenance(nlohmann::json& doc);

// Throws UsageError naming `where` and the field when one is present but not a string.
[[nodiscard]] Provenance provenance_from_json(const nlohmann::json& doc, const std::string& where);

}  // namespace pipebench
