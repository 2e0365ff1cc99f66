// SPDX-License-Identifier: Apache-2.0
// The op registry: each op file registers itself with one line, PB_REGISTER_OP(Type). Everything
// outside collectives/ asks it what an op is (its aliases, whether it is a transfer, its placement
// under Megatron) instead of listing op names.
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
  // Throws UsageError naming flag, the nearest known op and the known ops.
  [[nodiscard]] const Op& find(std::string_view flag, std::string_view name) const;
  // The op of this name, or nullptr: for names read from files, which may hold ops pipebench does not run.
  [[nodiscard]] const Op* get(std::string_view name) const;
  // The op that `text` names exactly, by its name or one of its OpAliases; nullptr when none does.
  [[nodiscard]] const Op* resolve(std::string_view text) const;
  [[nodiscard]] const Op* resolve(OpAlias kind, std::string_view text) const;  // that kind of alias only
  // The op whose c10d alias is the longest start of `compact` (lower case, '_' removed); nullptr if none.
  [[nodiscard]] const Op* resolve_c10d(std::string_view compact) const;
  [[nodiscard]] std::vector<std::string> names() const;  // sorted
  [[nodiscard]] std::vector<const Op*> ops() const;      // sorted by name
  [[nodiscard]] std::string name_list() const;           // "all_gather, all_reduce, ...", for messages
  // The transfer op (OpTraits::is_transfer): it times a plan's send/recv messages. Throws Error if none.
  [[nodiscard]] const Op& transfer_op() const;
  // The op's traits for a name read from a file; none set for a name the registry does not know.
  [[nodiscard]] OpTraits traits(std::string_view name) const;

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
