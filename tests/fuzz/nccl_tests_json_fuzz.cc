// SPDX-License-Identifier: Apache-2.0
// Fuzz target: nccl-tests -J JSON (schema versions 1-3, complete or cut short) as import and report read
// it, through to the pipebench.results/1 document. What is kept must be in range and the document must
// dump as valid UTF-8 JSON (a type_error here was a crash of `import`).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "core/error.h"
#include "io/nccl_tests_log.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    pipebench::NcclTestsHints hints;
    hints.file_name = "all_reduce_perf.json";
    pipebench::NcclTestsImport imp{"fuzz.json", pipebench::parse_nccl_tests(text, hints)};
    for (const auto& log : imp.file.logs) {
      for (const auto& r : log.records) {
        if (!(r.time_us > 0) || r.busbw_gbps < 0 || r.algbw_gbps < 0 || r.nranks <= 0 || r.wrong < -1) std::abort();
      }
    }
    (void)pipebench::nccl_tests_results({imp}, "").dump();
  } catch (const pipebench::UsageError&) {
  }
  return 0;
}
