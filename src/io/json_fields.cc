// SPDX-License-Identifier: Apache-2.0
// Checked field access for the schema readers.
#include "io/json_fields.h"

#include <limits>

#include "core/error.h"

namespace pipebench {

using nlohmann::json;

std::string JsonFields::join(const std::string& path, const std::string& key) {
  return path.empty() ? key : path + "." + key;
}

std::string JsonFields::item(const std::string& path, std::size_t i) { return path + "[" + std::to_string(i) + "]"; }

void JsonFields::fail(const std::string& path, const std::string& problem) const {
  throw UsageError(where_ + ": \"" + path + "\" " + problem);
}

void JsonFields::require_schema(const json& j, const std::string& schema, const std::string& what) const {
  if (!j.is_object() || !j.contains("schema")) throw UsageError(where_ + ": not a " + what + " (no \"schema\")");
  if (j["schema"] != schema) throw UsageError(where_ + ": schema " + j["schema"].dump() + " is not " + schema);
}

const json& JsonFields::at(const json& parent, const std::string& path, const std::string& key) const {
  if (!parent.is_object() || !parent.contains(key)) fail(join(path, key), "is missing");
  return parent[key];
}

const json& JsonFields::object(const json& parent, const std::string& path, const std::string& key) const {
  const json& v = at(parent, path, key);
  if (!v.is_object()) fail(join(path, key), "is not an object");
  return v;
}

const json& JsonFields::array(const json& parent, const std::string& path, const std::string& key) const {
  const json& v = at(parent, path, key);
  if (!v.is_array()) fail(join(path, key), "is not an array");
  return v;
}

void JsonFields::check_integer(const json& v, const std::string& name, std::int64_t lo, std::int64_t hi,
                               const char* not_integer) const {
  if (!v.is_number_integer() ||
      (v.is_number_unsigned() && v.get<std::uint64_t>() > std::numeric_limits<std::int64_t>::max())) {
    fail(name, not_integer);
  }
  const std::int64_t x = v.get<std::int64_t>();
  if (x < lo || x > hi) fail(name, "is out of range");
}

}  // namespace pipebench
