// SPDX-License-Identifier: Apache-2.0
// The current time in UTC, as text.
#pragma once

#include <string>

namespace pipebench {

// Now in UTC, formatted by strftime's `format`: ISO 8601 ("2026-12-02T10:13:52Z") unless told otherwise.
[[nodiscard]] std::string utc_timestamp(const char* format = "%Y-%m-%dT%H:%M:%SZ");

}  // namespace pipebench
