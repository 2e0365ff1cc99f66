// SPDX-License-Identifier: Apache-2.0
// Fuzz target: Megatron-LM arguments (one argument per whitespace-separated word), parsed as
// `pipebench plan -- ARGS` does.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "core/error.h"
#include "megatron/model_args.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  std::vector<std::string> args;
  for (std::string word; in >> word;) args.push_back(word);
  try {
    (void)pipebench::parse_megatron_args(args);
  } catch (const pipebench::UsageError&) {
  }
  return 0;
}
