// SPDX-License-Identifier: Apache-2.0
// A plan message's op, typed: one half of a pipeline P2P transfer (Megatron's p2p_communication send or
// recv, which no registry op is: bench times both halves as the transfer op), or a collective of the op
// registry that Megatron issues (OpTraits::in_plans). Names are read and written at the edge only:
// plan/1 (io/plan_io.cc), the printers, and the traces a plan is held against.
#pragma once

#include <optional>
#include <string_view>

#include "collectives/op.h"

namespace pipebench {

class PlanOp {
 public:
  PlanOp() = default;  // none yet: neither P2P nor a collective (a message being built)
  // A name written in the plan's own code ("all_reduce"); throws Error where it is not a plan op.
  PlanOp(const char* name);  // NOLINT(google-explicit-constructor): the plan's literals read as names
  [[nodiscard]] static PlanOp send() { return PlanOp(Kind::kSend, nullptr); }
  [[nodiscard]] static PlanOp recv() { return PlanOp(Kind::kRecv, nullptr); }
  // "send", "recv", or a collective Megatron issues; nullopt for any other name (a file's).
  [[nodiscard]] static std::optional<PlanOp> find(std::string_view name);

  [[nodiscard]] bool is_p2p() const { return kind_ == Kind::kSend || kind_ == Kind::kRecv; }
  [[nodiscard]] bool is_send() const { return kind_ == Kind::kSend; }
  [[nodiscard]] bool is_recv() const { return kind_ == Kind::kRecv; }
  // The registry's op of a collective; nullptr for a P2P half (and for none).
  [[nodiscard]] const Op* collective() const { return op_; }
  [[nodiscard]] bool is(std::string_view name) const { return this->name() == name; }
  [[nodiscard]] std::string_view name() const;  // "send", "recv", the collective's name; "" for none

  friend bool operator==(const PlanOp& a, const PlanOp& b) { return a.kind_ == b.kind_ && a.op_ == b.op_; }
  friend bool operator!=(const PlanOp& a, const PlanOp& b) { return !(a == b); }

 private:
  enum class Kind { kNone, kSend, kRecv, kCollective };
  PlanOp(Kind kind, const Op* op) : kind_(kind), op_(op) {}
  Kind kind_ = Kind::kNone;
  const Op* op_ = nullptr;
};

}  // namespace pipebench
