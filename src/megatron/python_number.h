// SPDX-License-Identifier: Apache-2.0
// Python's int() and float() on a string, as argparse applies them to a Megatron argument's value
// (type=int, type=float): which strings they accept, and the number.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace pipebench {

// int(text) of Python 3: surrounding whitespace, a sign, decimal digits with single underscores between
// them ("1_000"), leading zeros allowed. std::nullopt where Python raises ValueError, and where the value
// is beyond 64 bits (Python would take it; nothing Megatron plans with is that large).
[[nodiscard]] std::optional<std::int64_t> python_int(const std::string& text);

// float(text) of Python 3: surrounding whitespace, a sign, then "inf", "infinity" or "nan" in any case,
// or digits with an optional point and exponent ("1e-3", ".5", "5.", underscores between digits).
// std::nullopt where Python raises ValueError.
[[nodiscard]] std::optional<double> python_float(const std::string& text);

}  // namespace pipebench
