// SPDX-License-Identifier: Apache-2.0
// Units: sizes are binary (1K = 1024 B, as nccl-tests' parsesize), bandwidths decimal (1 GB/s = 1e9 B/s,
// as nccl-tests' getBw and nvbench), times in microseconds at the edges.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace pipebench {

inline constexpr double kBytesPerGB = 1e9;  // bandwidth unit: GB/s = 1e9 bytes per second
inline constexpr double kUsPerSecond = 1e6;

// Parses "8", "64K", "1.5M", "1G" (suffixes K/M/G/T, case-insensitive, optional trailing "B"/"iB").
// REQUIRES: the result is a whole, positive number of bytes. Throws UsageError naming `flag`.
[[nodiscard]] std::uint64_t parse_size_bytes(std::string_view flag, std::string_view text);

// "1G", "64M", "256K" or "8" when exact, else the plain byte count.
[[nodiscard]] std::string format_size(std::uint64_t size_bytes);

// Bandwidth in GB/s for bytes moved in time_s; 0 when time_s is not positive.
[[nodiscard]] inline double gbps(double bytes, double time_s) {
  return time_s > 0 ? bytes / time_s / kBytesPerGB : 0.0;
}

}  // namespace pipebench
