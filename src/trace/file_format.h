// SPDX-License-Identifier: Apache-2.0
// What kind of profile a file is, by its content (not its name): SQLite's 16-byte header, or JSON.
#pragma once

#include <string>

namespace pipebench {

enum class TraceFormat { kSqlite, kJson };

// Throws UsageError naming the file: missing or unreadable, empty, or neither SQLite nor JSON.
[[nodiscard]] TraceFormat detect_trace_format(const std::string& path);

}  // namespace pipebench
