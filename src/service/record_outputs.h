// SPDX-License-Identifier: Apache-2.0
// The files a measuring command writes its records to, one row per format: its flag, its help and the
// writer it opens. bench, bench --plan, pairs and run take their output flags, their distinct-file checks
// and their writers from this table, so that a new format is one row and reaches every one of them.
#pragma once

#include <CLI/CLI.hpp>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "core/distinct_files.h"
#include "harness/sink.h"
#include "io/results_io.h"
#include "launch/world.h"
#include "service/bench_config.h"
#include "service/report_session.h"

namespace pipebench {

// What a writer is opened with, the typed run context: the run's system block (its devices name the
// ranks), the sweep's config, the backend and the NCCL_TESTS_MIN_BW threshold (nccl-tests' JSON carries its
// verdict).
struct RecordOutputContext {
  const SystemInfo& system;
  const BenchConfig& config;
  const Backend& backend;
  const World& world;
  std::optional<double> min_busbw_gbps;
};

struct RecordOutput {
  const char* flag;   // as messages name it: "-J"
  const char* names;  // CLI11's names: "-J,--output_file"
  const char* help;
  std::string BenchOutputs::*path;
  // The writer of a path given. Null for --json and --csv: the report session writes them (the results
  // header, and the link state seen during the run when the sweep ends).
  std::unique_ptr<RecordSink> (*open)(const std::string& path, const RecordOutputContext& context);
  bool one_op = false;  // nccl-tests' JSON holds one op: bench's own sweep only
};

// Every row, in the order the help lists them.
[[nodiscard]] const std::vector<RecordOutput>& record_outputs();

// The options of every row (one_op rows only where with_one_op).
void add_record_output_options(CLI::App& sub, BenchOutputs& outputs, bool with_one_op);

// Every row's flag and path, for the distinct-file checks and the output locks (an empty path is no file).
[[nodiscard]] std::vector<FileArg> record_output_files(const BenchOutputs& outputs);

// Rank 0 opens the writer of every path given beside the report session's own. Collective: a path that
// cannot be written stops every rank before anything is measured (UsageError).
void open_record_outputs(ReportSession& report, const RecordOutputContext& context);

}  // namespace pipebench
