// SPDX-License-Identifier: Apache-2.0
// `pipebench trace FILE`: what a profiled run spent, per device and per collective; optionally a Chrome
// trace of an nsys export, and the profile held against a plan and prediction.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/command.h"
#include "harness/progress.h"
#include "trace/trace_options.h"

namespace pipebench {

struct TraceCommandOptions {
  std::string path;                        // the one profile (set from paths when there is one)
  std::vector<std::string> paths;          // DIR|FILE... as given: two or more, or a directory, read as one job
  std::vector<std::string> compare_paths;  // --compare OTHER...
  std::string replay_path;                 // --replay (job view)
  double tolerance = -1;                   // --tolerance; -1: the default
  std::string align = "auto";              // --align (job view)
  std::string by = "kernel";               // kernel, nvtx
  bool demangled = false;
  std::string chrome_trace_path;
  std::string activity;                    // empty: all
  std::vector<std::string> nvtx_prefixes;  // --nvtx-prefix, split at commas, empty items dropped
  std::string plan_path, prediction_path, schedule;
  std::optional<int> first_rank;
  std::int64_t iterations = 0;
  std::string json_path;
  int top_rows = 20;
  bool quiet = false;  // --quiet: no progress lines
};

// The progress hook `trace` hands the readers: "pipebench: MiB 12 of 800, about 40 s left" on out, a
// redrawn line on a terminal (tty) and plain lines otherwise (see Progress). The line is erased when the
// last copy of the hook is destroyed.
[[nodiscard]] TraceProgressFn trace_progress(std::ostream& out, bool tty,
                                             Progress::Clock clock = Progress::steady_seconds);

[[nodiscard]] std::unique_ptr<Subcommand> make_trace_command();

}  // namespace pipebench
