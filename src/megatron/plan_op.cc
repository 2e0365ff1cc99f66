// SPDX-License-Identifier: Apache-2.0
#include "megatron/plan_op.h"

#include <string>

#include "collectives/registry.h"
#include "core/error.h"

namespace pipebench {

std::optional<PlanOp> PlanOp::find(std::string_view name) {
  if (name == "send") return send();
  if (name == "recv") return recv();
  const Op* op = OpRegistry::instance().get(name);
  if (op && op->traits().in_plans) return PlanOp(Kind::kCollective, op);
  return std::nullopt;
}

PlanOp::PlanOp(const char* name) {
  const auto op = find(name);
  if (!op) throw Error(std::string("plan: '") + name + "' is not an op of a plan");
  *this = *op;
}

std::string_view PlanOp::name() const {
  switch (kind_) {
    case Kind::kSend:
      return "send";
    case Kind::kRecv:
      return "recv";
    case Kind::kCollective:
      return op_->name();
    case Kind::kNone:
      break;
  }
  return "";
}

}  // namespace pipebench
