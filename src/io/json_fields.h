// SPDX-License-Identifier: Apache-2.0
// Checked field access for the schema readers of src/io: every failure is one UsageError line naming
// the file (or what the JSON came from) and the field, e.g. `--plan p.json: "layout.pp" is missing`.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
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

  // parent[key] as T through nlohmann's typed conversion (get<T>), with the JSON type checked first (nlohmann
  // converts true to 1 and 2.5 to 2): a bool is true or false, an integer a whole number that fits T, a
  // double any number, a std::vector an array whose elements are named "PATH.KEY[i]". Anything else is one
  // line naming the field: `"PATH.KEY" is not an integer`.
  template <typename T>
  [[nodiscard]] T get(const nlohmann::json& parent, const std::string& path, const std::string& key) const {
    return as<T>(at(parent, path, key), join(path, key));
  }
  // get<T> into `into` where parent has key; absent (or null, where null_is_absent) keeps `into`.
  template <typename T>
  void get_if(const nlohmann::json& parent, const std::string& path, const std::string& key, T& into,
              bool null_is_absent = false) const {
    const auto it = parent.is_object() ? parent.find(key) : parent.end();
    if (it != parent.end() && !(null_is_absent && it->is_null())) into = as<T>(*it, join(path, key));
  }
  // get<T>, finite and in [lo, hi]; else `"PATH.KEY" is X, outside [lo, hi]`.
  template <typename T>
  [[nodiscard]] T get_in(const nlohmann::json& parent, const std::string& path, const std::string& key, T lo,
                         T hi) const {
    const T v = get<T>(parent, path, key);
    if (!(v >= lo && v <= hi)) {  // false for NaN too
      fail(join(path, key), "is " + at(parent, path, key).dump() + ", outside [" + nlohmann::json(lo).dump() + ", " +
                                nlohmann::json(hi).dump() + "]");
    }
    return v;
  }
  // get<T>, and >= 0 (a double also finite); else `"PATH.KEY" is not a finite number >= 0` ("is negative").
  template <typename T>
  [[nodiscard]] T get_non_negative(const nlohmann::json& parent, const std::string& path,
                                   const std::string& key) const {
    const T v = get<T>(parent, path, key);
    if (!(v >= 0 && v <= std::numeric_limits<T>::max())) {  // false for NaN and infinity too
      fail(join(path, key), std::is_integral_v<T> ? "is negative" : "is not a finite number >= 0");
    }
    return v;
  }
  [[nodiscard]] int get_int(const nlohmann::json& parent, const std::string& path, const std::string& key) const {
    return get<int>(parent, path, key);
  }
  [[nodiscard]] std::int64_t get_i64(const nlohmann::json& parent, const std::string& path,
                                     const std::string& key) const {
    return get<std::int64_t>(parent, path, key);
  }
  [[nodiscard]] double get_double(const nlohmann::json& parent, const std::string& path, const std::string& key) const {
    return get<double>(parent, path, key);
  }
  [[nodiscard]] double get_double_in(const nlohmann::json& parent, const std::string& path, const std::string& key,
                                     double lo, double hi) const {
    return get_in<double>(parent, path, key, lo, hi);
  }
  [[nodiscard]] bool get_bool(const nlohmann::json& parent, const std::string& path, const std::string& key) const {
    return get<bool>(parent, path, key);
  }
  [[nodiscard]] std::string get_string(const nlohmann::json& parent, const std::string& path,
                                       const std::string& key) const {
    return get<std::string>(parent, path, key);
  }
  [[nodiscard]] std::vector<int> get_ints(const nlohmann::json& parent, const std::string& path,
                                          const std::string& key) const {
    return get<std::vector<int>>(parent, path, key);
  }
  [[nodiscard]] std::vector<std::int64_t> get_i64s(const nlohmann::json& parent, const std::string& path,
                                                   const std::string& key) const {
    return get<std::vector<std::int64_t>>(parent, path, key);
  }
  [[nodiscard]] std::vector<std::string> get_strings(const nlohmann::json& parent, const std::string& path,
                                                     const std::string& key) const {
    return get<std::vector<std::string>>(parent, path, key);
  }
  [[nodiscard]] std::vector<std::vector<int>> get_int_lists(const nlohmann::json& parent, const std::string& path,
                                                            const std::string& key) const {
    return get<std::vector<std::vector<int>>>(parent, path, key);
  }

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
  template <typename T>
  struct IsVector : std::false_type {};
  template <typename T>
  struct IsVector<std::vector<T>> : std::true_type {};

  // v (the field `name`) as T: the one place a field's JSON type is checked and converted.
  template <typename T>
  [[nodiscard]] T as(const nlohmann::json& v, const std::string& name) const {
    if constexpr (IsVector<T>::value) {
      if (!v.is_array()) fail(name, "is not an array");
      T out;
      out.reserve(v.size());
      for (std::size_t i = 0; i < v.size(); ++i) out.push_back(as<typename T::value_type>(v[i], item(name, i)));
      return out;
    } else {
      if constexpr (std::is_same_v<T, bool>) {
        if (!v.is_boolean()) fail(name, "is not true or false");
      } else if constexpr (std::is_integral_v<T>) {
        static_assert(std::is_signed_v<T> && sizeof(T) <= sizeof(std::int64_t));
        check_integer(v, name, std::numeric_limits<T>::min(), std::numeric_limits<T>::max(),
                      sizeof(T) == sizeof(std::int64_t) ? "is not a 64-bit integer" : "is not an integer");
      } else if constexpr (std::is_arithmetic_v<T>) {
        if (!v.is_number()) fail(name, "is not a number");
      } else if constexpr (std::is_same_v<T, std::string>) {
        if (!v.is_string()) fail(name, "is not a string");
      }
      return v.get<T>();
    }
  }
  // A whole number in [lo, hi]: `not_integer` where it is no integer of 64 bits, else "is out of range".
  void check_integer(const nlohmann::json& v, const std::string& name, std::int64_t lo, std::int64_t hi,
                     const char* not_integer) const;

  std::string where_;
};

}  // namespace pipebench
