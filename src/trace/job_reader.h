// SPDX-License-Identifier: Apache-2.0
// Reads a whole job's profiles: every rank's file (Kineto JSON, gzip-compressed or not, or an Nsight
// Systems SQLite export), a few at once (one thread per file being read), keeping per rank only the
// summary (memory grows with ranks x distinct kernel names plus the files being read, never with all
// events of all ranks), then aligns the clocks.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "trace/job_profile.h"
#include "trace/trace_options.h"

namespace pipebench {

struct JobReadOptions {
  TraceOptions trace;             // chrome_trace_path is ignored here (job_chrome writes the merged one)
  std::optional<int> first_rank;  // ranks of files that name none: first_rank, first_rank + 1, ... in order
  std::int64_t iterations = 0;    // 0: ProfilerStep count, else the whole profile as one
  std::string align = "auto";     // --align: auto, epoch, collective (job_align.h)
  std::string flag = "trace";     // names the inputs in messages ("--compare" for the other run)
};

// Files of DIR (regular files named *.json, *.json.gz, *.sqlite, in natural name order) and FILEs as
// given. Throws UsageError naming the path for a missing one, or a directory without profiles.
[[nodiscard]] std::vector<std::string> expand_trace_inputs(const std::string& flag,
                                                           const std::vector<std::string>& inputs);

// The rank a file name states: rank0, rank_3, rank-12, rep_3 (nsys -o rep_%q{RANK}), worker3; nullopt if none.
[[nodiscard]] std::optional<int> rank_from_file_name(const std::string& path);

// Throws UsageError for a file that is not a profile, two files of one rank (naming both), a file
// without kernels. Damaged files are kept with their damage set.
[[nodiscard]] JobProfile read_job(const std::vector<std::string>& inputs, const JobReadOptions& o);

}  // namespace pipebench
