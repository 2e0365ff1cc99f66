// SPDX-License-Identifier: Apache-2.0
// A recursive-descent reader of the grammar (Python's precedence: * binds tighter than +):
//   sum     := product ('+' product)*
//   product := atom ('*' atom)*
//   atom    := integer | '[' [integer (',' integer)* [',']] ']' | '(' sum ')'
#include "megatron/list_expression.h"

#include <cctype>
#include <cstdint>

#include "core/error.h"

namespace pipebench {
namespace {

// A value: an integer or a list of integers.
struct Value {
  bool is_list = false;
  long long number = 0;
  std::vector<long long> list;
};

class Reader {
 public:
  Reader(const std::string& what, const std::string& text, std::size_t max_length)
      : what_(what), text_(text), max_(max_length) {}

  std::vector<long long> read() {
    Value v = sum();
    skip_spaces();
    if (at_ < text_.size()) fail("unexpected '" + std::string(1, text_[at_]) + "'");
    if (!v.is_list) fail("an integer, not a list");
    return v.list;
  }

 private:
  [[noreturn]] void fail(const std::string& problem) const {
    throw UsageError(what_ + " " + text_ + ": not a list expression such as ([0]*3+[1]*58) (" + problem + ")");
  }

  void skip_spaces() {
    while (at_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[at_]))) ++at_;
  }

  bool take(char c) {
    skip_spaces();
    if (at_ < text_.size() && text_[at_] == c) {
      ++at_;
      return true;
    }
    return false;
  }

  long long integer() {
    skip_spaces();
    const std::size_t start = at_;
    if (at_ < text_.size() && text_[at_] == '-') ++at_;
    while (at_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[at_]))) ++at_;
    if (at_ == start || (at_ == start + 1 && text_[start] == '-')) fail("a number or [ was expected");
    if (at_ - start > 12) fail("a number too large");
    return std::stoll(text_.substr(start, at_ - start));
  }

  Value atom() {
    Value v;
    if (take('(')) {
      v = sum();
      if (!take(')')) fail("a ) is missing");
      return v;
    }
    if (take('[')) {
      v.is_list = true;
      while (!take(']')) {
        if (!v.list.empty() && !take(',')) fail("a , or ] is missing");
        if (take(']')) break;  // a trailing comma
        v.list.push_back(integer());
        if (v.list.size() > max_) fail("longer than " + std::to_string(max_));
      }
      return v;
    }
    v.number = integer();
    return v;
  }

  Value product() {
    Value v = atom();
    while (take('*')) {
      const Value w = atom();
      if (v.is_list == w.is_list) fail(v.is_list ? "a list times a list" : "a product of integers");
      const Value& list = v.is_list ? v : w;
      const long long times = v.is_list ? w.number : v.number;
      if (times < 0 || (times > 0 && list.list.size() > max_ / static_cast<std::size_t>(times)))
        fail("a repetition longer than " + std::to_string(max_));
      Value r;
      r.is_list = true;
      for (long long i = 0; i < times; ++i) r.list.insert(r.list.end(), list.list.begin(), list.list.end());
      v = std::move(r);
    }
    return v;
  }

  Value sum() {
    Value v = product();
    while (take('+')) {
      const Value w = product();
      if (!v.is_list || !w.is_list) fail("+ joins two lists");
      if (v.list.size() + w.list.size() > max_) fail("longer than " + std::to_string(max_));
      v.list.insert(v.list.end(), w.list.begin(), w.list.end());
    }
    return v;
  }

  const std::string& what_;
  const std::string& text_;
  std::size_t max_;
  std::size_t at_ = 0;
};

}  // namespace

std::vector<long long> eval_list_expression(const std::string& what, const std::string& text, std::size_t max_length) {
  return Reader(what, text, max_length).read();
}

}  // namespace pipebench
