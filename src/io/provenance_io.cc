// SPDX-License-Identifier: Apache-2.0
// Provenance fields of every pipebench file.
#include "io/provenance_io.h"

#include "core/command_line.h"
#include "core/version.h"
#include "io/json_fields.h"

namespace pipebench {

void add_provenance(nlohmann::json& doc) {
  if (!doc.contains("tool_version")) doc["tool_version"] = kToolVersion;
  doc["command_line"] = this_command_line();
}

Provenance provenance_from_json(const nlohmann::json& doc, const std::string& where) {
  const JsonFields f(where);
  Provenance p;
  if (!doc.is_object()) return p;
  auto text = [&](const char* key, std::string& into) {
    if (doc.contains(key) && !doc[key].is_null()) into = f.get_string(doc, "", key);
  };
  text("tool_version", p.tool_version);
  text("created_utc", p.created_utc);
  text("command_line", p.command_line);
  return p;
}

}  // namespace pipebench
