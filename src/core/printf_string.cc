// SPDX-License-Identifier: Apache-2.0
#include "core/printf_string.h"

#include <cstdarg>
#include <cstdio>
#include <vector>

namespace pipebench {

std::string printf_string(const char* format, ...) {
  va_list ap;
  va_start(ap, format);
  va_list again;
  va_copy(again, ap);
  const int n = std::vsnprintf(nullptr, 0, format, ap);
  va_end(ap);
  std::string out;
  if (n > 0) {
    std::vector<char> buf(static_cast<std::size_t>(n) + 1);
    std::vsnprintf(buf.data(), buf.size(), format, again);
    out.assign(buf.data(), static_cast<std::size_t>(n));
  }
  va_end(again);
  return out;
}

}  // namespace pipebench
