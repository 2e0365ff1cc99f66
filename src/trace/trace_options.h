// SPDX-License-Identifier: Apache-2.0
// What the readers are asked to do: how to name the breakdown rows and what to convert.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "trace/chrome_trace_writer.h"

namespace pipebench {

// How far a reader is through its input: `done` of `total` in `unit` ("MiB" of a JSON file, "kernel
// row" of an nsys export); called now and then, and with done == total at the end.
using TraceProgressFn = std::function<void(const std::string& unit, std::int64_t done, std::int64_t total)>;

struct TraceOptions {
  bool by_nvtx = false;           // --by nvtx: rows named after the innermost NVTX range of the launching thread
  bool demangled = false;         // --demangled: full kernel names (nsys demangledName) instead of base names
  std::string chrome_trace_path;  // --chrome-trace (nsys SQLite only)
  ChromeActivities activities;    // --activity
  std::vector<std::string> nvtx_prefixes;  // --nvtx-prefix: only ranges whose text starts with one of these
  TraceProgressFn progress;                // unset: no progress (--quiet)
  [[nodiscard]] bool nvtx_selected(const std::string& text) const {
    if (nvtx_prefixes.empty()) return true;
    for (const auto& p : nvtx_prefixes)
      if (text.compare(0, p.size(), p) == 0) return true;
    return false;
  }
};

}  // namespace pipebench
