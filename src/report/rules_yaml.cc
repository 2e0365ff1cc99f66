// SPDX-License-Identifier: Apache-2.0
#include "report/rules_yaml.h"

#include <cstdint>
#include <map>
#include <sstream>
#include <vector>

#if PB_HAVE_YAMLCPP
#include <yaml-cpp/anchor.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>
#endif

#include "core/error.h"
#include "core/utf8.h"

namespace pipebench {

#if PB_HAVE_YAMLCPP
namespace {

// Builds the JSON value from parser events. An anchored value is kept (with its node count) once it is
// complete; an alias copies it, counted against the node budget before the copy is made.
class JsonBuilder : public YAML::EventHandler {
 public:
  explicit JsonBuilder(std::string file) : file_(std::move(file)) {}
  nlohmann::json take() { return std::move(root_); }

  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override { add(mark, nullptr, 1, anchor); }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    if (++aliases_ > kMaxRulesAliases) fail(mark, "more than " + std::to_string(kMaxRulesAliases) + " aliases");
    const auto it = anchors_.find(anchor);
    if (it == anchors_.end()) fail(mark, "alias refers to its own node (a cycle)");
    add(mark, it->second.first, it->second.second, YAML::NullAnchor);
  }
  void OnScalar(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                const std::string& value) override {
    if (!valid_utf8(value)) fail(mark, "not UTF-8 text");
    add(mark, expecting_key() ? nlohmann::json(value) : scalar(tag, value), 1, anchor);
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    open(mark, nlohmann::json::array(), anchor);
  }
  void OnSequenceEnd() override { close(); }
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value) override {
    open(mark, nlohmann::json::object(), anchor);
  }
  void OnMapEnd() override { close(); }

 private:
  struct Open {
    nlohmann::json value;
    YAML::anchor_t anchor;
    std::size_t nodes_before;  // nodes_ when it opened
    YAML::Mark mark;
    bool have_key = false;  // a mapping between its key and its value
    std::string key;
  };

  [[noreturn]] void fail(const YAML::Mark& mark, const std::string& what) const {
    throw UsageError("--rules " + file_ + ": line " + std::to_string(mark.line + 1) + ": " + what);
  }

  // YAML 1.2 core schema typing of a plain scalar (yaml-cpp's conversions); "!" marks a quoted one.
  static nlohmann::json scalar(const std::string& tag, const std::string& value) {
    if (tag == "!") return value;
    const YAML::Node n(value);
    bool b = false;
    if (YAML::convert<bool>::decode(n, b)) return b;
    std::int64_t i = 0;
    if (YAML::convert<std::int64_t>::decode(n, i)) return i;
    double d = 0;
    if (YAML::convert<double>::decode(n, d)) return d;
    return value;
  }

  void count(const YAML::Mark& mark, std::size_t nodes) {
    if (nodes > kMaxRulesNodes - nodes_) {
      fail(mark, "more than " + std::to_string(kMaxRulesNodes) + " values (after aliases are expanded)");
    }
    nodes_ += nodes;
  }

  bool expecting_key() const { return !stack_.empty() && stack_.back().value.is_object() && !stack_.back().have_key; }

  void open(const YAML::Mark& mark, nlohmann::json empty, YAML::anchor_t anchor) {
    if (expecting_key()) fail(mark, "a mapping key must be text");
    if (stack_.size() >= kMaxRulesDepth) fail(mark, "nested deeper than " + std::to_string(kMaxRulesDepth) + " levels");
    count(mark, 1);
    stack_.push_back({std::move(empty), anchor, nodes_ - 1, mark, false, {}});
  }

  void close() {
    Open done = std::move(stack_.back());
    stack_.pop_back();
    if (done.have_key) fail(done.mark, "mapping ends after a key without a value");
    add_complete(done.mark, std::move(done.value), nodes_ - done.nodes_before, done.anchor);
  }

  void add(const YAML::Mark& mark, nlohmann::json value, std::size_t nodes, YAML::anchor_t anchor) {
    count(mark, nodes);
    add_complete(mark, std::move(value), nodes, anchor);
  }

  // A complete value (its nodes already counted) goes into the open collection or becomes the root.
  void add_complete(const YAML::Mark& mark, nlohmann::json value, std::size_t nodes, YAML::anchor_t anchor) {
    if (anchor != YAML::NullAnchor) anchors_[anchor] = {value, nodes};
    if (stack_.empty()) {
      root_ = std::move(value);
      return;
    }
    Open& top = stack_.back();
    if (top.value.is_array()) {
      top.value.push_back(std::move(value));
    } else if (!top.have_key) {
      if (!value.is_string()) fail(mark, "a mapping key must be text, not " + value.dump());
      top.key = value.get<std::string>();
      if (top.value.contains(top.key)) fail(mark, "key '" + top.key + "' given twice");
      top.have_key = true;
    } else {
      top.value[top.key] = std::move(value);
      top.have_key = false;
    }
  }

  std::string file_;
  nlohmann::json root_;
  std::vector<Open> stack_;
  std::map<YAML::anchor_t, std::pair<nlohmann::json, std::size_t>> anchors_;
  std::size_t nodes_ = 0, aliases_ = 0;
};

}  // namespace

nlohmann::json rules_yaml_to_json(const std::string& text, const std::string& file) {
  std::istringstream in(text);
  JsonBuilder builder(file);
  try {
    YAML::Parser parser(in);
    parser.HandleNextDocument(builder);
  } catch (const YAML::Exception& e) {
    const std::string line = e.mark.is_null() ? "" : "line " + std::to_string(e.mark.line + 1) + ": ";
    throw UsageError("--rules " + file + ": " + line + e.msg);
  }
  return builder.take();
}

#else

nlohmann::json rules_yaml_to_json(const std::string&, const std::string& file) {
  throw UsageError("--rules " + file + ": not JSON; YAML rules need pipebench built with yaml-cpp");
}

#endif

}  // namespace pipebench
