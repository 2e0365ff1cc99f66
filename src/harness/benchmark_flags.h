// SPDX-License-Identifier: Apache-2.0
// The Google Benchmark flags of bench and run (--benchmark_*), checked before anything runs. Google
// Benchmark itself prints its usage and exits 0 on a bad format, and opens --benchmark_out with a plain
// ofstream (through links, into FIFOs and devices, write errors ignored). So pipebench keeps the output
// flags to itself: the format values are checked here, the file goes through the output rules of
// core/file_io.h (checked before measuring, written atomically, a failed write is an error), and only
// the other flags reach the library.
#pragma once

#include <string>
#include <vector>

namespace pipebench {

struct BenchmarkFlags {
  std::vector<std::string> library_args;  // the flags handed to benchmark::Initialize (all but --benchmark_out*)
  std::string display_format;             // --benchmark_format; empty: pipebench's own table
  std::string out_path;                   // --benchmark_out; empty: no file
  std::string out_format = "json";        // --benchmark_out_format (Google Benchmark's default)
};

// Splits and checks the flags. Throws UsageError naming the flag and value: a format other than
// console, json or csv; --benchmark_out= with no file; --benchmark_out_format without --benchmark_out;
// --benchmark_time_unit other than ns, us, ms or s; an empty --benchmark_color; --benchmark_repetitions
// (each repetition would be another record of the same point: --reps sets the timed batches).
[[nodiscard]] BenchmarkFlags parse_benchmark_flags(const std::vector<std::string>& args);

// parse_benchmark_flags, then the --benchmark_out path against the output rules (a regular file or a new
// path in an existing folder; never a link, FIFO, device or folder). UsageError "--benchmark_out PATH: ...".
void check_benchmark_flags(const std::vector<std::string>& args);

}  // namespace pipebench
