// SPDX-License-Identifier: Apache-2.0
// Opens a trace for streaming: a plain file, or a gzip-compressed one (torch.profiler writes
// `trace.json.gz` when asked to) decompressed through zlib as it is read, never whole in memory.
#pragma once

#include <istream>
#include <memory>
#include <string>

namespace pipebench {

// True when this build links zlib (zlib.h was found at build time).
[[nodiscard]] bool gzip_available();

// True when the file starts with the gzip magic bytes 1f 8b (RFC 1952 §2.3.1).
[[nodiscard]] bool is_gzip_file(const std::string& path);

// A stream over the file's content, decompressed when it is gzip. Throws UsageError naming the file
// when it cannot be opened, and for a gzip file in a build without zlib. A gzip stream that is cut off
// or corrupt ends early; the JSON reader then reports where.
[[nodiscard]] std::unique_ptr<std::istream> open_trace_input(const std::string& path);

}  // namespace pipebench
