// SPDX-License-Identifier: Apache-2.0
// Fuzz target: NCCL's NVTX API ranges and their exported payloads (trace/nccl_nvtx_payload.h). The
// input is the range name, a newline, then the payload text. Nothing may crash; a size found is >= 0.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "trace/nccl_nvtx_payload.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const std::size_t nl = text.find('\n');
  const std::string_view name = nl == std::string_view::npos ? text : text.substr(0, nl);
  const std::string_view payload = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
  const auto p = pipebench::parse_nccl_nvtx_range(name, payload);
  if (p && p->bytes && *p->bytes < 0) std::abort();
  return 0;
}
