// SPDX-License-Identifier: Apache-2.0
// Process-wide schedule registry, filled by static registrars before main and read-only afterwards.
#include "schedule/schedule_registry.h"

#include <algorithm>

#include "core/error.h"
#include "core/suggest.h"
#include "core/terminal_text.h"

namespace pipebench {

const char* step_rule_name(StepRule rule) {
  return rule == StepRule::kPostValidation ? "post-validation" : "synchronous step";
}

ScheduleRegistry& ScheduleRegistry::instance() {
  static ScheduleRegistry registry;
  return registry;
}

void ScheduleRegistry::add(std::unique_ptr<ScheduleGenerator> g) { generators_.push_back(std::move(g)); }

const ScheduleGenerator* ScheduleRegistry::find_or_null(std::string_view name) const {
  for (const auto& g : generators_) {
    if (name == g->name()) return g.get();
  }
  return nullptr;
}

const ScheduleGenerator& ScheduleRegistry::find(std::string_view flag, std::string_view name) const {
  if (const ScheduleGenerator* g = find_or_null(name)) return *g;
  const std::vector<std::string> known = names();
  std::string list;
  for (const auto& n : known) list += (list.empty() ? "" : ", ") + n;
  throw UsageError(std::string(flag) + ": unknown schedule '" + quotable(name) + "'" + did_you_mean(name, known) +
                   " (one of: " + list + ")");
}

std::vector<std::string> ScheduleRegistry::names() const {
  std::vector<std::string> out;
  for (const auto& g : generators_) out.emplace_back(g->name());
  std::sort(out.begin(), out.end());
  return out;
}

std::string schedule_flag_help() {
  const ScheduleRegistry& registry = ScheduleRegistry::instance();
  std::string help = "all, or one:";
  for (const std::string& name : registry.names()) {
    const ScheduleGenerator& g = *registry.find_or_null(name);
    help += (help.back() == ':' ? " " : ", ") + name + (g.interleaves() && g.chunks() == 0 ? "[:vN]" : "") + " (" +
            g.summary() + ")";
  }
  return help;
}

const ScheduleGenerator& schedule_generator(const ScheduleId& id) {
  if (id.generator) return *id.generator;
  return ScheduleRegistry::instance().find("schedule", id.name);
}

}  // namespace pipebench
