// SPDX-License-Identifier: Apache-2.0
// The action CSV: lines, cells, actions.
#include "schedule/action_csv.h"

#include <algorithm>
#include <charconv>
#include <iterator>

#include "core/error.h"
#include "core/terminal_text.h"

namespace pipebench {
namespace {

struct TypeName {
  std::string_view text;
  ActionType type;
};

// Longest first where one name starts another ("SEND_F" before "F" never matters: a type follows digits).
constexpr TypeName kTypes[] = {
    {"F", ActionType::kForward},       {"I", ActionType::kBackwardInput},        {"W", ActionType::kBackwardWeight},
    {"B", ActionType::kFullBackward},  {"SEND_F", ActionType::kSendF},           {"RECV_F", ActionType::kRecvF},
    {"SEND_B", ActionType::kSendB},    {"RECV_B", ActionType::kRecvB},           {"UNSHARD", ActionType::kUnshard},
    {"RESHARD", ActionType::kReshard}, {"REDUCE_GRAD", ActionType::kReduceGrad},
};

constexpr std::string_view kKnown =
    "[stage][type][microbatch] with type F, I, W, B, SEND_F, RECV_F, SEND_B or RECV_B (0F3, 1SEND_B2), or "
    "UNSHARD, RESHARD, REDUCE_GRAD without a microbatch, or (A;B)OVERLAP_F_B";

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

// The digits at the front of s, as a number of at most `max`; false when there are none or too many.
bool take_number(std::string_view& s, std::int64_t max, std::int64_t& out) {
  std::size_t n = 0;
  while (n < s.size() && s[n] >= '0' && s[n] <= '9') ++n;
  if (n == 0) return false;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + n, out);
  if (ec != std::errc() || end != s.data() + n || out > max) return false;
  s.remove_prefix(n);
  return true;
}

class CellReader {
 public:
  CellReader(const std::string& what, int row, int cell, std::string_view text)
      : what_(what), row_(row), cell_(cell), text_(text) {}

  // One cell's actions (an OVERLAP_F_B's in order).
  void read(std::vector<ScheduleAction>& out) const {
    const std::string_view overlap = ")OVERLAP_F_B";
    if (!text_.empty() && text_.front() == '(') {
      if (text_.size() < overlap.size() + 1 || text_.substr(text_.size() - overlap.size()) != overlap) fail();
      std::string_view inner = text_.substr(1, text_.size() - 1 - overlap.size());
      while (true) {
        const std::size_t semi = inner.find(';');
        const std::string_view one = trim(inner.substr(0, semi));
        if (one.empty()) fail();
        out.push_back(action(one));
        if (semi == std::string_view::npos) break;
        inner.remove_prefix(semi + 1);
      }
      return;
    }
    out.push_back(action(text_));
  }

 private:
  ScheduleAction action(std::string_view s) const {
    ScheduleAction a;
    a.row = row_;
    a.cell = cell_;
    a.text = std::string(text_);
    std::int64_t stage = 0;
    if (!take_number(s, kMaxCsvStage - 1, stage)) fail();
    a.stage = static_cast<int>(stage);
    // A name matches only where a digit or the end follows it, so a short name ("B", "F") never takes the
    // start of a longer one, whatever the table's order.
    const TypeName* t = std::find_if(std::begin(kTypes), std::end(kTypes), [s](const TypeName& n) {
      const std::string_view rest = s.substr(std::min(n.text.size(), s.size()));
      return s.substr(0, n.text.size()) == n.text && (rest.empty() || (rest.front() >= '0' && rest.front() <= '9'));
    });
    if (t == std::end(kTypes)) fail();
    a.type = t->type;
    s.remove_prefix(t->text.size());
    const bool fsdp =
        a.type == ActionType::kUnshard || a.type == ActionType::kReshard || a.type == ActionType::kReduceGrad;
    if ((!fsdp && !take_number(s, kMaxCsvMicrobatch - 1, a.microbatch)) || !s.empty()) fail();
    return a;
  }

  [[noreturn]] void fail() const {
    throw UsageError(what_ + ": row " + std::to_string(row_) + ", cell " + std::to_string(cell_) + " '" +
                     quotable(text_) + "': not an action (expected " + std::string(kKnown) + ")");
  }

  const std::string& what_;
  int row_, cell_;
  std::string_view text_;
};

}  // namespace

std::vector<std::vector<ScheduleAction>> parse_action_csv(std::string_view text, const std::string& what) {
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);  // a UTF-8 byte order mark
  std::vector<std::vector<ScheduleAction>> rows;
  // Row R is pipeline rank R-1: a row without an action before the last one would shift every rank after
  // it (and every row number in later messages), so it is refused rather than dropped or read as a rank.
  // Rows without an action are counted, never kept: trailing blank lines cost no memory however many.
  int row = 0, first_blank = 0;
  std::vector<ScheduleAction> actions;
  while (!text.empty()) {
    const std::size_t nl = text.find('\n');
    const std::string_view line = text.substr(0, nl);
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    ++row;
    actions.clear();
    std::string_view cells = line;
    for (int cell = 1;; ++cell) {
      const std::size_t comma = cells.find(',');
      std::string_view c = trim(cells.substr(0, comma));
      // csv.writer quotes a cell only when it holds a comma, quote or line break, which no action does;
      // a quoted action is read without its quotes.
      if (c.size() >= 2 && c.front() == '"' && c.back() == '"') c = trim(c.substr(1, c.size() - 2));
      if (!c.empty()) CellReader(what, row, cell, c).read(actions);
      if (comma == std::string_view::npos) break;
      cells.remove_prefix(comma + 1);
    }
    if (actions.empty()) {
      if (first_blank == 0) first_blank = row;
      continue;
    }
    if (first_blank != 0) {
      throw UsageError(what + ": row " + std::to_string(first_blank) +
                       " has no action (a blank line?); each row up to the last is one pipeline rank's actions");
    }
    rows.push_back(actions);
  }
  return rows;
}

}  // namespace pipebench
