// SPDX-License-Identifier: Apache-2.0
#include "schedule/schedule_id.h"

#include <charconv>

#include "core/error.h"
#include "schedule/schedule_file.h"
#include "schedule/schedule_registry.h"

namespace pipebench {

ScheduleSelection parse_schedule_selection(std::string_view flag, std::string_view text) {
  if (text.empty() || text == "all") return {};
  const std::size_t colon = text.find(':');
  const std::string_view name = text.substr(0, colon);
  const ScheduleGenerator& g = ScheduleRegistry::instance().find(flag, name);
  ScheduleSelection out{std::string(name), 0};
  if (colon == std::string_view::npos) return out;
  const std::string_view suffix = text.substr(colon + 1);
  const std::string where = std::string(flag) + " " + std::string(text) + ": ";
  if (!g.interleaves()) throw UsageError(where + std::string(name) + " runs one chunk per rank (no :vN)");
  int v = 0;
  const char* first = suffix.data() + 1;
  const char* last = suffix.data() + suffix.size();
  const auto [end, ec] =
      suffix.size() > 1 && suffix[0] == 'v' ? std::from_chars(first, last, v) : std::from_chars(last, last, v);
  if (suffix.size() < 2 || suffix[0] != 'v' || ec != std::errc() || end != last || v < 2 || v > kMaxVirtualStages) {
    throw UsageError(where + "expected " + std::string(name) + ":vN with N from 2 to " +
                     std::to_string(kMaxVirtualStages));
  }
  if (g.chunks() > 0 && v != g.chunks())
    throw UsageError(where + std::string(name) + " runs " + std::to_string(g.chunks()) + " chunks per rank (" +
                     std::string(name) + ":v" + std::to_string(g.chunks()) + ")");
  out.v = v;
  return out;
}

std::string schedule_id_problem(const std::string& name, int v) {
  if (is_file_schedule_name(name)) {
    if (v >= 1 && v <= kMaxVirtualStages) return "";
    return "schedule " + name + " with v " + std::to_string(v) + " (v from 1 to " + std::to_string(kMaxVirtualStages) +
           ")";
  }
  const ScheduleRegistry& registry = ScheduleRegistry::instance();
  const ScheduleGenerator* g = registry.find_or_null(name);
  if (!g) {
    std::string list;
    for (const auto& n : registry.names()) list += (list.empty() ? "" : ", ") + n;
    return "schedule '" + name + "' is none of " + list;
  }
  if (g->chunks() > 0 && v != g->chunks())
    return "schedule " + name + " with v " + std::to_string(v) + " (its v is " + std::to_string(g->chunks()) + ")";
  if (g->interleaves() ? v < 2 || v > kMaxVirtualStages : v != 1) {
    return "schedule " + name + " with v " + std::to_string(v) + " (" +
           (g->interleaves() ? "v from 2 to " + std::to_string(kMaxVirtualStages) : std::string("its v is 1")) + ")";
  }
  return "";
}

}  // namespace pipebench
