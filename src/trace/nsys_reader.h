// SPDX-License-Identifier: Apache-2.0
// Reads an Nsight Systems SQLite export (trace-formats.md C1) into a TraceProfile, and converts it to
// a Chrome trace on the way when asked. Rows stream in SQL order; SQLite sorts on disk, so memory
// stays bounded by the number of distinct kernel names and the NVTX nesting depth.
#pragma once

#include <string>

#include "trace/profile.h"
#include "trace/trace_options.h"

namespace pipebench {

// True when this build can read SQLite (the sqlite3 header was found at build time).
[[nodiscard]] bool nsys_reader_available();

// Throws UsageError for a file that is not an nsys export (naming the missing tables) and when the
// build has no SQLite. A file that turns out damaged mid-read returns what was read, with `damage`
// set; rows that cannot be read (NULLs, ids missing from StringIds) are counted in skipped_rows.
[[nodiscard]] TraceProfile read_nsys_sqlite(const std::string& path, const TraceOptions& options);

}  // namespace pipebench
