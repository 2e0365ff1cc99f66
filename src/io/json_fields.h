// SPDX-License-Identifier: Apache-2.0
// Checked field access for the schema readers of src/io: every failure is one UsageError line naming
// the file (or what the JSON came from) and the field, e.g. `--plan p.json: "layout.pp" is missing`.
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

namespace pipebench {

class JsonFields {
 public:
  // where: how the message names the source ("--plan p.json").
  explicit JsonFields(std::string where) : where_(std::move(where)) {}

  [[nodiscard]] const std::string& where() const { return where_; }
  // Throws UsageError unless j["schema"] == schema; `what` names the kind ("pipebench plan").
  void require_schema(const nlohmann::json& j, const std::string& schema, const std::string& what) const;
  [[noreturn]] void fail(const std::string& path, const std::string& problem) const;

  // path: the dotted name of `parent` ("" for the top level); key: the field inside it.
  [[nodiscard]] const nlohmann::json& at(const nlohmann::json& parent, const std::string& path,
                                         const std::string& key) const;
  [[nodiscard]] const nlohmann::json& object(const nlohmann::json& parent, const std::string& path,
                                             const std::string& key) const;
  [[nodiscard]] const nlohmann::json& array(const nlohmann::json& parent, const std::string& path,
                                            const std::string& key) const;
  [[nodiscard]] int get_int(const nlohmann::json& parent, const std::string& path, const std::string& key) const;
  [[nodiscard]] std::int64_t get_i64(const nlohmann::json& parent, const std::string& path,
                                     const std::string& key) const;
  [[nodiscard]] double get_double(const nlohmann::json& parent, const std::string& path, const std::string& key) const;
  // A finite number in [lo, hi]; else `"PATH.KEY" is X, outside [lo, hi]`.
  [[nodiscard]] double get_double_in(const nlohmann::json& parent, const std::string& path, const std::string& key,
                                     double lo, double hi) const;
  [[nodiscard]] bool get_bool(const nlohmann::json& parent, const std::string& path, const std::string& key) const;
  [[nodiscard]] std::string get_string(const nlohmann::json& parent, const std::string& path,
                                       const std::string& key) const;
  [[nodiscard]] std::vector<int> get_ints(const nlohmann::json& parent, const std::string& path,
                                          const std::string& key) const;
  [[nodiscard]] std::vector<std::int64_t> get_i64s(const nlohmann::json& parent, const std::string& path,
                                                   const std::string& key) const;
  [[nodiscard]] std::vector<std::string> get_strings(const nlohmann::json& parent, const std::string& path,
                                                     const std::string& key) const;
  [[nodiscard]] std::vector<std::vector<int>> get_int_lists(const nlohmann::json& parent, const std::string& path,
                                                            const std::string& key) const;

  // Every element of the array parent[key], in order, as read(*this, element, "PATH.KEY[i]").
  template <typename Read>
  [[nodiscard]] auto list(const nlohmann::json& parent, const std::string& path, const std::string& key,
                          Read read) const {
    const nlohmann::json& a = array(parent, path, key);
    const std::string name = join(path, key);
    std::vector<std::decay_t<decltype(read(*this, a, name))>> out;
    for (std::size_t i = 0; i < a.size(); ++i) out.push_back(read(*this, a[i], item(name, i)));
    return out;
  }
  // get(*this, parent, path, key) (a getter of this class, or a function taking the JsonFields first), or
  // std::nullopt where the field is null; a missing field is still an error.
  template <typename Get>
  [[nodiscard]] auto or_null(const nlohmann::json& parent, const std::string& path, const std::string& key,
                             Get get) const {
    using T = std::decay_t<decltype(std::invoke(get, *this, parent, path, key))>;
    if (at(parent, path, key).is_null()) return std::optional<T>();
    return std::optional<T>(std::invoke(get, *this, parent, path, key));
  }

  // The dotted name of `key` inside `path`, and of element i of the array `path`.
  [[nodiscard]] static std::string join(const std::string& path, const std::string& key);
  [[nodiscard]] static std::string item(const std::string& path, std::size_t i);

 private:
  [[nodiscard]] int as_int(const nlohmann::json& v, const std::string& path) const;
  std::string where_;
};

}  // namespace pipebench
