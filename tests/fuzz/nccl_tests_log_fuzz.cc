// SPDX-License-Identifier: Apache-2.0
// Fuzz target: nccl-tests output (text and -J JSON) as `pipebench import nccl-tests`, report and
// predict --table read it, with and without the hints a file name and --nranks give.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "core/error.h"
#include "io/nccl_tests_log.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    for (const char* name : {"all_reduce_perf.log", "notes.txt"}) {
      pipebench::NcclTestsHints hints;
      hints.file_name = name;
      hints.nranks = name[0] == 'n' ? 4 : 0;
      const pipebench::NcclTestsFile f = pipebench::parse_nccl_tests(text, hints);
      // What import keeps must be in range: the results file and the cost model rely on it.
      for (const auto& log : f.logs) {
        for (const auto& r : log.records) {
          if (!(r.time_us > 0) || r.busbw_gbps < 0 || r.algbw_gbps < 0 || r.nranks <= 0) std::abort();
        }
      }
    }
  } catch (const pipebench::UsageError&) {
  }
  return 0;
}
