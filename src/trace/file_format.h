// SPDX-License-Identifier: Apache-2.0
// What kind of profile a file is, by its content (not its name): SQLite's 16-byte header, gzip's
// magic, or JSON.
#pragma once

#include <string>

namespace pipebench {

// kGzipJson: gzip-compressed (RFC 1952 magic 1f 8b), read as JSON through zlib.
enum class TraceFormat { kSqlite, kJson, kGzipJson };

// Throws UsageError naming the file: missing or unreadable, empty, or neither SQLite nor JSON.
[[nodiscard]] TraceFormat detect_trace_format(const std::string& path);

}  // namespace pipebench
