// SPDX-License-Identifier: Apache-2.0
// Fuzz target: PyTorch profiler (Kineto) JSON traces, by kernel and by NVTX range.
#include <cstddef>
#include <cstdint>

#include "core/error.h"
#include "fuzz/fuzz_input.h"
#include "trace/kineto_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = pipebench::fuzz::input_file("kineto_json", data, size);
  for (const bool by_nvtx : {false, true}) {
    pipebench::TraceOptions o;
    o.by_nvtx = by_nvtx;
    try {
      (void)pipebench::read_kineto_json(path, o);
    } catch (const pipebench::UsageError&) {
    }
  }
  return 0;
}
