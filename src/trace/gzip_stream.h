// SPDX-License-Identifier: Apache-2.0
// Opens a trace for streaming: a plain file, or a gzip-compressed one (torch.profiler writes
// `trace.json.gz` when asked to) decompressed through zlib as it is read, never whole in memory.
#pragma once

#include <cstdint>
#include <istream>
#include <memory>
#include <string>

namespace pipebench {

// True when this build links zlib (zlib.h was found at build time).
[[nodiscard]] bool gzip_available();

// True when the file starts with the gzip magic bytes 1f 8b (RFC 1952 §2.3.1).
[[nodiscard]] bool is_gzip_file(const std::string& path);

// What a JSON trace may hold, so that memory stays bounded whatever the file (a 2 MB gzip file can expand
// to gigabytes of one string or of spaces, which the JSON reader would buffer whole): one string, one run
// of whitespace and one value nested two levels deep (an event of "traceEvents") at most 16, 16 and
// 64 MiB; the decompressed data of a gzip file at most 16 GiB.
inline constexpr std::int64_t kMaxTraceStringBytes = std::int64_t{16} << 20;
inline constexpr std::int64_t kMaxTraceEventBytes = std::int64_t{64} << 20;
inline constexpr std::int64_t kMaxTraceExpandedBytes = std::int64_t{16} << 30;

// A stream over the file's content, decompressed when it is gzip, that throws UsageError naming the file
// and the byte offset when a limit above is passed. Throws UsageError naming the file when it cannot be
// opened, and for a gzip file in a build without zlib. A gzip stream that is cut off ends early (the JSON
// reader then reports where); a corrupt one is an error naming the file.
[[nodiscard]] std::unique_ptr<std::istream> open_trace_input(const std::string& path);

}  // namespace pipebench
