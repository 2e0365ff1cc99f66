// SPDX-License-Identifier: Apache-2.0
// Process-wide op registry, filled by static registrars before main and read-only afterwards.
#include "collectives/registry.h"

#include <algorithm>

#include "core/error.h"

namespace pipebench {

OpRegistry& OpRegistry::instance() {
  static OpRegistry registry;
  return registry;
}

void OpRegistry::add(std::unique_ptr<Op> op) { ops_.push_back(std::move(op)); }

const Op& OpRegistry::find(std::string_view flag, std::string_view name) const {
  for (const auto& op : ops_) {
    if (op->name() == name) return *op;
  }
  std::string known;
  for (const auto& n : names()) known += (known.empty() ? "" : ", ") + n;
  throw UsageError(std::string(flag) + ": unknown op '" + std::string(name) + "' (one of: " + known + ")");
}

const Op& OpRegistry::plan_transfer_op() const {
  for (const auto& op : ops_) {
    if (op->times_plan_transfers()) return *op;
  }
  throw Error("no registered op times a plan's send/recv messages");
}

std::vector<std::string> OpRegistry::names() const {
  std::vector<std::string> out;
  for (const auto& op : ops_) out.emplace_back(op->name());
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace pipebench
