// SPDX-License-Identifier: Apache-2.0
// The op registry: each op file registers itself with one line, PB_REGISTER_OP(Type).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "collectives/op.h"

namespace pipebench {

class OpRegistry {
 public:
  static OpRegistry& instance();
  void add(std::unique_ptr<Op> op);
  // Throws UsageError naming flag and the known ops.
  [[nodiscard]] const Op& find(std::string_view flag, std::string_view name) const;
  [[nodiscard]] std::vector<std::string> names() const;  // sorted
  // The op that times a plan's send/recv messages (Op::times_plan_transfers). Throws Error if none.
  [[nodiscard]] const Op& plan_transfer_op() const;

 private:
  std::vector<std::unique_ptr<Op>> ops_;
};

namespace detail {
template <typename T>
struct OpRegistrar {
  OpRegistrar() { OpRegistry::instance().add(std::make_unique<T>()); }
};
}  // namespace detail

// NOTE: op objects are linked directly (not from a static library), so their registrars run.
#define PB_REGISTER_OP(Type) \
  static const ::pipebench::detail::OpRegistrar<Type> pb_registrar_##Type {}

}  // namespace pipebench
