// SPDX-License-Identifier: Apache-2.0
// A pipeline schedule, named once: the generator that writes its programs (schedule_registry.h) and its
// virtual stages per rank. Every command spells it from here: key() in verdicts, --schedule values and
// files' matching ("interleaved:v2"), label() in tables and reports ("interleaved v=2").
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace pipebench {

class ScheduleGenerator;

struct ScheduleId {
  std::string name = "1f1b";  // a registered generator: "1f1b", "interleaved", "gpipe"; "file:STEM"
  int v = 1;                  // model chunks per pipeline rank
  // The generator of a schedule read from a file (schedule_file.h), which no registry holds; null for a
  // registered one. Not part of the identity: name and v are.
  std::shared_ptr<const ScheduleGenerator> generator = nullptr;

  [[nodiscard]] std::string key() const { return v > 1 ? name + ":v" + std::to_string(v) : name; }
  [[nodiscard]] std::string label() const { return v > 1 ? name + " v=" + std::to_string(v) : name; }
  // Chrome trace file names (predict trace-<stem>.json, replay replay-<stem>.json): "1f1b-v1"; a schedule
  // file's "file:a" as "file-a-v1".
  [[nodiscard]] std::string file_stem() const {
    std::string stem = name;
    for (char& c : stem) c = c == ':' ? '-' : c;
    return stem + "-v" + std::to_string(v);
  }
  [[nodiscard]] bool is_baseline() const { return name == "1f1b"; }  // speed-ups are against it
  friend bool operator==(const ScheduleId& a, const ScheduleId& b) { return a.name == b.name && a.v == b.v; }
  friend bool operator!=(const ScheduleId& a, const ScheduleId& b) { return !(a == b); }
  friend bool operator<(const ScheduleId& a, const ScheduleId& b) {
    return a.name != b.name ? a.name < b.name : a.v < b.v;
  }
};

// What a --schedule value selects: every schedule ("" or "all"), every v of one generator ("interleaved"),
// or one schedule ("interleaved:v4"); and, beside them, the schedules of --schedule-file.
struct ScheduleSelection {
  std::string name;                    // "": every schedule
  int v = 0;                           // 0: every v of `name`
  std::vector<ScheduleId> files = {};  // read by load_schedule_file (schedule_file.h)

  [[nodiscard]] bool all() const { return name.empty(); }
  [[nodiscard]] bool matches(const ScheduleId& id) const {
    return name.empty() || (name == id.name && (v == 0 || v == id.v));
  }
  [[nodiscard]] std::string text() const { return name.empty() ? "all" : v > 0 ? ScheduleId{name, v}.key() : name; }
};

// Parses a --schedule value against the registered generators. Throws UsageError naming `flag`, the value
// and the known names (with the nearest one when the value looks like a misspelling): an unknown name, a
// malformed or out-of-range ":vN", or a ":vN" on a schedule that has one chunk per rank.
[[nodiscard]] ScheduleSelection parse_schedule_selection(std::string_view flag, std::string_view text);

// Why (name, v) read from a file is no schedule: "" when it is one; else a name no generator has (with the
// known ones), or a v the generator cannot run (v > 1 exactly where it interleaves, at most
// kMaxVirtualStages).
[[nodiscard]] std::string schedule_id_problem(const std::string& name, int v);

inline constexpr int kMaxVirtualStages = 1024;

}  // namespace pipebench
