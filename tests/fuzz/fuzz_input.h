// SPDX-License-Identifier: Apache-2.0
// Shared by the fuzz targets: the input as a file for the parsers that read files, and the rule that
// bad input may only end in pipebench's own errors (UsageError, Error); anything else escapes the
// target and counts as a crash.
#pragma once

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

namespace pipebench::fuzz {

// Writes the input to a file of this process (one per target and process) and returns its path.
inline std::string input_file(const char* target, const std::uint8_t* data, std::size_t size) {
  const std::string path = "/tmp/pipebench_fuzz_" + std::string(target) + "_" + std::to_string(getpid());
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) std::abort();
  if (size && std::fwrite(data, 1, size, f) != size) std::abort();
  std::fclose(f);
  return path;
}

}  // namespace pipebench::fuzz
