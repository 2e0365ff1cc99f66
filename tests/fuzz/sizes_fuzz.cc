// SPDX-License-Identifier: Apache-2.0
// Fuzz target: size lists ("8,256K,64M"), single sizes and the -b/-e/-f/-i sweep rules.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/error.h"
#include "core/sizes.h"
#include "core/units.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    (void)pipebench::parse_size_list("--sizes", text);
  } catch (const pipebench::UsageError&) {
  }
  // Four sizes separated by spaces: -b -e -f -i.
  std::uint64_t v[4] = {1, 1, 2, 0};
  std::size_t start = 0;
  for (int i = 0; i < 4 && start < text.size(); ++i) {
    const std::size_t end = text.find(' ', start);
    try {
      v[i] = pipebench::parse_size_bytes("-b", text.substr(start, end == std::string::npos ? end : end - start));
    } catch (const pipebench::UsageError&) {
    }
    if (end == std::string::npos) break;
    start = end + 1;
  }
  try {
    (void)pipebench::sweep_sizes(v[0], v[1], v[2], v[3]);
  } catch (const pipebench::UsageError&) {
  }
  return 0;
}
