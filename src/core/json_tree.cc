// SPDX-License-Identifier: Apache-2.0
// The tree from SAX events: a stack of the open objects and arrays, each value put into the innermost one.
#include "core/json_tree.h"

#include <utility>
#include <vector>

namespace pipebench {
namespace {

using nlohmann::json;

class TreeBuilder final : public nlohmann::json_sax<json> {
 public:
  explicit TreeBuilder(DuplicateKeys duplicates) : duplicates_(duplicates) {}

  bool null() override { return put(json(nullptr)); }
  bool boolean(bool v) override { return put(json(v)); }
  bool number_integer(number_integer_t v) override { return put(json(v)); }
  bool number_unsigned(number_unsigned_t v) override { return put(json(v)); }
  bool number_float(number_float_t v, const string_t& /*text*/) override { return put(json(v)); }
  bool string(string_t& v) override { return put(json(std::move(v))); }
  bool binary(binary_t& v) override { return put(json::binary(std::move(v))); }
  bool start_object(std::size_t /*elements*/) override { return open(json::object()); }
  bool start_array(std::size_t /*elements*/) override { return open(json::array()); }
  bool end_object() override { return close(); }
  bool end_array() override { return close(); }
  bool key(string_t& k) override {
    // The object holds every member completed so far: a key it holds was given before.
    if (duplicates_ == DuplicateKeys::kStop && open_.back().contains(k)) {
      tree_.duplicate_key = json(k).dump();
      return false;
    }
    keys_.back() = std::move(k);
    return true;
  }
  bool parse_error(std::size_t /*position*/, const std::string& /*last_token*/,
                   const nlohmann::json::exception& e) override {
    tree_.error = e.what();
    return false;
  }

  // The tree once the parser has stopped: whole, or folded from what is open (json_tree.h).
  JsonTree finish(bool whole) {
    tree_.whole = whole && tree_.duplicate_key.empty() && open_.empty();
    while (!open_.empty()) {
      json v = std::move(open_.back());
      open_.pop_back();
      keys_.pop_back();
      if (open_.empty() || v.is_array()) put(std::move(v));
    }
    if (!tree_.whole && tree_.error.empty() && tree_.duplicate_key.empty()) tree_.error = "the text ends early";
    return std::move(tree_);
  }

 private:
  bool put(json v) {
    if (open_.empty()) {
      tree_.value = std::move(v);
    } else if (open_.back().is_array()) {
      open_.back().push_back(std::move(v));
    } else {
      open_.back()[keys_.back()] = std::move(v);
    }
    return true;
  }
  bool open(json container) {
    open_.push_back(std::move(container));
    keys_.emplace_back();
    return true;
  }
  bool close() {
    json v = std::move(open_.back());
    open_.pop_back();
    keys_.pop_back();
    return put(std::move(v));
  }

  DuplicateKeys duplicates_;
  std::vector<json> open_;         // the open objects and arrays, outermost first
  std::vector<std::string> keys_;  // per open one: the key of the member being read (objects)
  JsonTree tree_;
};

}  // namespace

JsonTree parse_json_tree(std::string_view text, DuplicateKeys duplicates) {
  TreeBuilder builder(duplicates);
  const bool whole = json::sax_parse(text.begin(), text.end(), &builder);
  return builder.finish(whole);
}

}  // namespace pipebench
