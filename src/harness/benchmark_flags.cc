// SPDX-License-Identifier: Apache-2.0
// Google Benchmark's flags, split and checked. The values accepted are those of Google Benchmark 1.7
// (benchmark.cc ParseCommandLineFlags: formats console/json/csv, time units ns/us/ms/s, a non-empty
// colour); anything else would make the library print its usage and exit 0 in the middle of a job.
#include "harness/benchmark_flags.h"

#include <algorithm>
#include <initializer_list>

#include "core/error.h"
#include "core/file_io.h"

namespace pipebench {
namespace {

// The value of "--NAME=VALUE" when `arg` is that flag.
bool value_of(const std::string& arg, const std::string& name, std::string* value) {
  const std::string prefix = "--" + name + "=";
  if (arg.rfind(prefix, 0) != 0) return false;
  *value = arg.substr(prefix.size());
  return true;
}

bool one_of(const std::string& value, std::initializer_list<const char*> allowed) {
  return std::any_of(allowed.begin(), allowed.end(), [&](const char* a) { return value == a; });
}

void require_format(const std::string& flag, const std::string& value) {
  if (!one_of(value, {"console", "json", "csv"})) {
    throw UsageError(flag + "=" + value + ": unknown format (one of console, json, csv)");
  }
}

}  // namespace

BenchmarkFlags parse_benchmark_flags(const std::vector<std::string>& args) {
  BenchmarkFlags f;
  bool out_given = false, out_format_given = false;
  for (const auto& a : args) {
    std::string v;
    if (value_of(a, "benchmark_format", &v)) {
      require_format("--benchmark_format", v);
      f.display_format = v;
      f.library_args.push_back(a);  // the library's display reporter reads it
    } else if (value_of(a, "benchmark_out_format", &v)) {
      require_format("--benchmark_out_format", v);
      f.out_format = v;
      out_format_given = true;
    } else if (value_of(a, "benchmark_out", &v)) {
      if (v.empty()) throw UsageError("--benchmark_out=: empty file name");
      f.out_path = v;
      out_given = true;
    } else {
      if (value_of(a, "benchmark_time_unit", &v) && !one_of(v, {"ns", "us", "ms", "s"})) {
        throw UsageError(a + ": unknown time unit (one of ns, us, ms, s)");
      }
      if (value_of(a, "benchmark_color", &v) && v.empty()) {
        throw UsageError(a + ": empty value (one of auto, true, false)");
      }
      if (a.rfind("--benchmark_repetitions", 0) == 0) {
        throw UsageError(a + ": each repetition would be another record of the same point; --reps sets the " +
                         "timed batches of a point");
      }
      f.library_args.push_back(a);
    }
  }
  if (out_format_given && !out_given) {
    throw UsageError("--benchmark_out_format=" + f.out_format + " applies only with --benchmark_out=FILE");
  }
  return f;
}

void check_benchmark_flags(const std::vector<std::string>& args) {
  const BenchmarkFlags f = parse_benchmark_flags(args);
  if (!f.out_path.empty()) require_output_in_folder("--benchmark_out", f.out_path);
}

}  // namespace pipebench
