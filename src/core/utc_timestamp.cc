// SPDX-License-Identifier: Apache-2.0
// Now in UTC, through gmtime_r (thread-safe) and strftime.
#include "core/utc_timestamp.h"

#include <ctime>

namespace pipebench {

std::string utc_timestamp(const char* format) {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[64];
  const std::size_t n = std::strftime(buf, sizeof buf, format, &tm);
  return std::string(buf, n);
}

}  // namespace pipebench
