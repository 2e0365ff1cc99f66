// SPDX-License-Identifier: Apache-2.0
// Checked field access for the schema readers.
#include "io/json_fields.h"

#include <cmath>
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

int JsonFields::as_int(const json& v, const std::string& path) const {
  if (!v.is_number_integer()) fail(path, "is not an integer");
  const std::int64_t x = v.get<std::int64_t>();
  if (x < std::numeric_limits<int>::min() || x > std::numeric_limits<int>::max()) fail(path, "is out of range");
  return static_cast<int>(x);
}

int JsonFields::get_int(const json& parent, const std::string& path, const std::string& key) const {
  return as_int(at(parent, path, key), join(path, key));
}

std::int64_t JsonFields::get_i64(const json& parent, const std::string& path, const std::string& key) const {
  const json& v = at(parent, path, key);
  if (!v.is_number_integer() ||
      (v.is_number_unsigned() && v.get<std::uint64_t>() > std::numeric_limits<std::int64_t>::max())) {
    fail(join(path, key), "is not a 64-bit integer");
  }
  return v.get<std::int64_t>();
}

double JsonFields::get_double(const json& parent, const std::string& path, const std::string& key) const {
  const json& v = at(parent, path, key);
  if (!v.is_number()) fail(join(path, key), "is not a number");
  return v.get<double>();
}

double JsonFields::get_double_in(const json& parent, const std::string& path, const std::string& key, double lo,
                                 double hi) const {
  const double v = get_double(parent, path, key);
  if (!std::isfinite(v) || v < lo || v > hi) {
    fail(join(path, key),
         "is " + at(parent, path, key).dump() + ", outside [" + json(lo).dump() + ", " + json(hi).dump() + "]");
  }
  return v;
}

bool JsonFields::get_bool(const json& parent, const std::string& path, const std::string& key) const {
  const json& v = at(parent, path, key);
  if (!v.is_boolean()) fail(join(path, key), "is not true or false");
  return v.get<bool>();
}

std::string JsonFields::get_string(const json& parent, const std::string& path, const std::string& key) const {
  const json& v = at(parent, path, key);
  if (!v.is_string()) fail(join(path, key), "is not a string");
  return v.get<std::string>();
}

std::vector<int> JsonFields::get_ints(const json& parent, const std::string& path, const std::string& key) const {
  return list(parent, path, key,
              [](const JsonFields& f, const json& v, const std::string& p) { return f.as_int(v, p); });
}

std::vector<std::int64_t> JsonFields::get_i64s(const json& parent, const std::string& path,
                                               const std::string& key) const {
  return list(parent, path, key, [](const JsonFields& f, const json& v, const std::string& p) {
    if (!v.is_number_integer()) f.fail(p, "is not an integer");
    return v.get<std::int64_t>();
  });
}

std::vector<std::string> JsonFields::get_strings(const json& parent, const std::string& path,
                                                 const std::string& key) const {
  return list(parent, path, key, [](const JsonFields& f, const json& v, const std::string& p) {
    if (!v.is_string()) f.fail(p, "is not a string");
    return v.get<std::string>();
  });
}

std::vector<std::vector<int>> JsonFields::get_int_lists(const json& parent, const std::string& path,
                                                        const std::string& key) const {
  return list(parent, path, key, [](const JsonFields& f, const json& v, const std::string& p) {
    if (!v.is_array()) f.fail(p, "is not an array");
    std::vector<int> g;
    for (std::size_t k = 0; k < v.size(); ++k) g.push_back(f.as_int(v[k], item(p, k)));
    return g;
  });
}

}  // namespace pipebench
