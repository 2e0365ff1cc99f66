// SPDX-License-Identifier: Apache-2.0
// Process-wide op registry, filled by static registrars before main and read-only afterwards.
#include "collectives/registry.h"

#include <algorithm>

#include "core/error.h"
#include "core/suggest.h"

namespace pipebench {

OpRegistry& OpRegistry::instance() {
  static OpRegistry registry;
  return registry;
}

void OpRegistry::add(std::unique_ptr<Op> op) { ops_.push_back(std::move(op)); }

const Op* OpRegistry::get(std::string_view name) const {
  for (const auto& op : ops_) {
    if (op->name() == name) return op.get();
  }
  return nullptr;
}

const Op& OpRegistry::find(std::string_view flag, std::string_view name) const {
  if (const Op* op = get(name)) return *op;
  throw UsageError(std::string(flag) + ": unknown op '" + std::string(name) + "'" + did_you_mean(name, names()) +
                   " (one of: " + name_list() + ")");
}

const Op* OpRegistry::resolve(std::string_view text) const {
  if (const Op* op = get(text)) return op;
  for (OpAlias kind : {OpAlias::kNcclApi, OpAlias::kNcclTests, OpAlias::kKernel, OpAlias::kC10d}) {
    if (const Op* op = resolve(kind, text)) return op;
  }
  return nullptr;
}

const Op* OpRegistry::resolve(OpAlias kind, std::string_view text) const {
  if (text.empty()) return nullptr;
  for (const auto& op : ops_) {
    if (alias_of(op->aliases(), kind) == text) return op.get();
  }
  return nullptr;
}

const Op* OpRegistry::resolve_c10d(std::string_view compact) const {
  const Op* best = nullptr;
  std::size_t best_size = 0;
  for (const auto& op : ops_) {
    const std::string_view prefix = op->aliases().c10d;
    // Longest first: "reducescatter_base" is reduce_scatter, not reduce.
    if (!prefix.empty() && prefix.size() > best_size && compact.substr(0, prefix.size()) == prefix) {
      best = op.get();
      best_size = prefix.size();
    }
  }
  return best;
}

const Op& OpRegistry::transfer_op() const {
  for (const auto& op : ops_) {
    if (op->traits().is_transfer) return *op;
  }
  throw Error("no registered op is a transfer (times a plan's send/recv messages)");
}

OpTraits OpRegistry::traits(std::string_view name) const {
  const Op* op = get(name);
  return op ? op->traits() : OpTraits{};
}

std::vector<const Op*> OpRegistry::ops() const {
  std::vector<const Op*> out;
  for (const auto& op : ops_) out.push_back(op.get());
  std::sort(out.begin(), out.end(), [](const Op* a, const Op* b) { return a->name() < b->name(); });
  return out;
}

std::vector<std::string> OpRegistry::names() const {
  std::vector<std::string> out;
  for (const Op* op : ops()) out.emplace_back(op->name());
  return out;
}

std::string OpRegistry::name_list() const {
  std::string list;
  for (const auto& n : names()) list += (list.empty() ? "" : ", ") + n;
  return list;
}

}  // namespace pipebench
