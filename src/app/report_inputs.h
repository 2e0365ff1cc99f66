// SPDX-License-Identifier: Apache-2.0
// The inputs of `pipebench report`: files and run folders (every regular *.json file in the folder),
// each recognised by its "schema" and read through the schema layer (src/io) into ReportInputs.
#pragma once

#include <string>
#include <vector>

#include "io/report_model.h"

namespace pipebench {

// The files an INPUT names: itself when a regular file, a folder's regular *.json files (sorted, its
// report.json left out) when a folder. Throws UsageError "INPUT PATH: ..." when it does not exist, is
// not a regular file or folder, or a folder holds no JSON file.
[[nodiscard]] std::vector<std::string> expand_input(const std::string& flag, const std::string& path);

// Reads every INPUT (results of any number of hosts, topologies, predictions, replays) and the baseline
// (a results file or run folder; empty = none). Throws UsageError naming the file: missing, not JSON,
// a schema report does not take, or a field out of range.
[[nodiscard]] ReportInputs load_report_inputs(const std::vector<std::string>& inputs, const std::string& baseline);

// Reads the baseline alone, as load_report_inputs does; returns the files it names. For `run`, so that
// a bad --baseline is told before the sweep rather than after it.
std::vector<std::string> check_baseline(const std::string& baseline);

}  // namespace pipebench
