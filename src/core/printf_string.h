// SPDX-License-Identifier: Apache-2.0
// printf-style formatting into a std::string, for the fixed-width text tables (the format is checked by
// the compiler).
#pragma once

#include <string>

namespace pipebench {

[[nodiscard]] std::string printf_string(const char* format, ...) __attribute__((format(printf, 1, 2)));

}  // namespace pipebench
