// SPDX-License-Identifier: Apache-2.0
// SAX event streaming.
#include "trace/json_event_stream.h"

#include <set>
#include <string>
#include <vector>

#include "core/json_file.h"

namespace pipebench {
namespace {

using json = nlohmann::json;

// nlohmann::json_sax: builds the value under construction (one event, or one top-level member) like
// the library's own DOM parser does, and skips the containers around it.
class EventSax : public nlohmann::json_sax<json> {
 public:
  EventSax(JsonStreamResult& r, const std::function<void(const json&)>& on_event) : r_(r), on_event_(on_event) {}

  bool null() override { return scalar(nullptr); }
  bool boolean(bool v) override { return scalar(v); }
  bool number_integer(number_integer_t v) override { return scalar(v); }
  bool number_unsigned(number_unsigned_t v) override { return scalar(v); }
  bool number_float(number_float_t v, const string_t&) override { return scalar(v); }
  bool string(string_t& v) override { return scalar(std::move(v)); }
  bool binary(binary_t& v) override { return scalar(json::binary(std::move(v))); }

  bool start_object(std::size_t) override { return open(json::object()); }
  bool start_array(std::size_t) override { return open(json::array()); }
  bool end_object() override { return close(); }
  bool end_array() override { return close(); }

  bool key(string_t& k) override {
    if (!stack_.empty()) {
      if (stack_.back()->contains(k)) return duplicate(k);
      key_ = k;
    } else if (depth_ == 1) {
      if (!top_keys_.insert(k).second) return duplicate(k);
      top_key_ = k;
    }
    return true;
  }

  bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& ex) override {
    r_.error = json_error_text(ex);
    r_.error_offset = position;
    return false;
  }

 private:
  bool duplicate(const std::string& k) {
    r_.duplicate_key = "key " + json(k).dump(-1, ' ', false, json::error_handler_t::replace) +
                       " given twice in one object" +
                       (root_is_event_ && !stack_.empty() ? " of event " + std::to_string(r_.events + 1) : "");
    return false;
  }

  // Where a value that starts now belongs.
  enum class Slot { kBuilding, kEvent, kTopMember, kSkip };
  Slot slot() const {
    if (!stack_.empty()) return Slot::kBuilding;
    if (in_events_ && depth_ == events_depth_) return Slot::kEvent;
    if (depth_ == 1 && r_.top == JsonStreamResult::Top::kObject) return Slot::kTopMember;
    return Slot::kSkip;
  }

  json* add(json&& v) {
    json& parent = *stack_.back();
    if (parent.is_array()) {
      parent.push_back(std::move(v));
      return &parent.back();
    }
    json& member = parent[key_];
    member = std::move(v);
    return &member;
  }

  bool scalar(json&& v) {
    switch (slot()) {
      case Slot::kBuilding:
        add(std::move(v));
        break;
      case Slot::kEvent:
        ++r_.non_objects;
        break;
      case Slot::kTopMember:
        r_.meta[top_key_] = std::move(v);
        break;
      case Slot::kSkip:
        if (depth_ == 0) r_.top = JsonStreamResult::Top::kOther;
        break;
    }
    return true;
  }

  bool open(json&& container) {
    const bool is_array = container.is_array();
    if (depth_ == 0) {
      r_.top = is_array ? JsonStreamResult::Top::kArray : JsonStreamResult::Top::kObject;
      if (is_array) enter_events(1);
      ++depth_;
      return true;
    }
    switch (slot()) {
      case Slot::kBuilding:
        stack_.push_back(add(std::move(container)));
        break;
      case Slot::kEvent:
        if (is_array) {
          ++r_.non_objects;  // its contents fall in no slot and are skipped
        } else {
          root_ = std::move(container);
          stack_.push_back(&root_);
          root_is_event_ = true;
        }
        break;
      case Slot::kTopMember:
        if (top_key_ == "traceEvents" && is_array) {
          enter_events(depth_ + 1);
        } else {
          root_ = std::move(container);
          stack_.push_back(&root_);
          root_is_event_ = false;
        }
        break;
      case Slot::kSkip:
        break;
    }
    ++depth_;
    return true;
  }

  void enter_events(int element_depth) {
    in_events_ = true;
    events_depth_ = element_depth;
    r_.saw_events = true;
  }

  bool close() {
    --depth_;
    if (!stack_.empty()) {
      stack_.pop_back();
      if (stack_.empty()) {
        if (root_is_event_) {
          ++r_.events;
          on_event_(root_);
        } else {
          r_.meta[top_key_] = std::move(root_);
        }
        root_ = nullptr;
      }
      return true;
    }
    if (in_events_ && depth_ == events_depth_ - 1) in_events_ = false;
    return true;
  }

  JsonStreamResult& r_;
  const std::function<void(const json&)>& on_event_;
  std::vector<json*> stack_;
  json root_;
  bool root_is_event_ = false;
  std::string key_, top_key_;
  std::set<std::string> top_keys_;
  int depth_ = 0;
  bool in_events_ = false;
  int events_depth_ = 0;
};

}  // namespace

JsonStreamResult stream_json_events(std::istream& in, const std::function<void(const json&)>& on_event) {
  JsonStreamResult r;
  EventSax sax(r, on_event);
  json::sax_parse(in, &sax);
  return r;
}

}  // namespace pipebench
