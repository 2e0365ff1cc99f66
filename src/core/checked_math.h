// SPDX-License-Identifier: Apache-2.0
// Checked 64-bit size arithmetic: a product or sum that does not fit in int64 is bad input (the user asked
// for a model, batch or file whose sizes cannot exist), never a silent wrap to a negative byte count.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>

#include "core/error.h"

namespace pipebench {

// a * b, or UsageError "WHAT overflows 64 bits" (what names the quantity and the inputs that made it).
[[nodiscard]] inline std::int64_t checked_mul(std::int64_t a, std::int64_t b, const std::string& what) {
  std::int64_t out = 0;
  if (__builtin_mul_overflow(a, b, &out)) throw UsageError(what + " overflows 64 bits");
  return out;
}

// The product of all factors, checked after each step.
[[nodiscard]] inline std::int64_t checked_product(std::initializer_list<std::int64_t> factors,
                                                  const std::string& what) {
  std::int64_t out = 1;
  for (std::int64_t f : factors) out = checked_mul(out, f, what);
  return out;
}

[[nodiscard]] inline std::int64_t checked_add(std::int64_t a, std::int64_t b, const std::string& what) {
  std::int64_t out = 0;
  if (__builtin_add_overflow(a, b, &out)) throw UsageError(what + " overflows 64 bits");
  return out;
}

}  // namespace pipebench
