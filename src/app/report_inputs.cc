// SPDX-License-Identifier: Apache-2.0
#include "app/report_inputs.h"

#include <sys/stat.h>

#include <filesystem>

#include "core/error.h"
#include "core/file_io.h"
#include "core/json_file.h"
#include "io/baseline_io.h"
#include "io/nccl_tests_argument.h"
#include "io/nccl_tests_log.h"
#include "io/prediction_io.h"
#include "io/provenance_io.h"
#include "io/replay_io.h"
#include "io/results_io.h"
#include "io/topology_io.h"
#include "io/trace_io.h"

namespace pipebench {

namespace {

namespace fs = std::filesystem;

// In a folder (a run folder), files of other schemas are listed as not read; named alone, they are
// bad input.
// op: the OP of an INPUT given as FILE:OP (io/nccl_tests_argument.h), "" when none.
void add_file(ReportInputs& out, const std::string& flag, const std::string& path, bool in_folder, bool baseline,
              const std::string& op = "") {
  // A file that is not a pipebench file may be an nccl-tests log (text or -J JSON): read as
  // `pipebench import nccl-tests` would write it. pipebench files are parsed once.
  const std::string text = read_input_file(flag, path);
  nlohmann::json doc = parse_json_text(flag, path, text);  // a key given twice is refused
  const bool pipebench_file = !doc.is_discarded() && doc.is_object() && doc.contains("schema");
  if (pipebench_file && !op.empty()) {
    throw UsageError(flag + " " + path + ":" + op + ": a pipebench file; FILE:OP gives the op of an nccl-tests log");
  }
  if (!pipebench_file) {
    if (auto imported = nccl_tests_result_set_of(path, text, op, flag)) {
      return (baseline ? out.baseline : out.results).push_back({path, std::move(*imported)});
    }
    if (doc.is_discarded()) doc = read_json_file(flag, path);  // throws its "not JSON (...)" message
  }
  const std::string schema = doc.is_object() && doc.contains("schema") && doc.at("schema").is_string()
                                 ? doc.at("schema").get<std::string>()
                                 : std::string();
  if (schema.empty() && in_folder) return out.skipped.push_back(path + ": not a pipebench file");
  if (schema.empty()) throw UsageError(flag + " " + path + ": not a pipebench file (no \"schema\")");
  if (baseline && schema == kBaselineSchema) {  // a fleet baseline (report --make-baseline)
    if (out.fleet) throw UsageError(flag + " " + path + ": a second fleet baseline (" + out.fleet->path + " is one)");
    out.fleet = baseline_from_json(doc, flag + " " + path);
    out.fleet->path = path;
    return;
  }
  const bool input = schema == kResultsSchema || schema == kTopologySchema || schema == kPredictionSchema ||
                     schema == kReplaySchema || schema == kTraceSchema;
  if (!input && in_folder) return out.skipped.push_back(path + ": " + schema + " is not an input of report");
  if (!input) {
    throw UsageError(flag + " " + path + ": schema '" + schema +
                     "' is not an input of report (pipebench.results/1, pipebench.topology/1, "
                     "pipebench.prediction/1, pipebench.replay/1, pipebench.trace/1)");
  }
  if (baseline && schema != kResultsSchema) {
    if (in_folder) return out.skipped.push_back(path + ": a baseline folder's " + schema + " is not read");
    throw UsageError(flag + " " + path + ": a baseline is a results file (pipebench.results/1) or a fleet baseline (" +
                     kBaselineSchema + ")");
  }
  const std::string where = flag + " " + path;
  const Provenance from = provenance_from_json(doc, where);
  if (schema == kResultsSchema) {
    (baseline ? out.baseline : out.results).push_back({path, results_from_json(doc, where)});
  } else if (schema == kTopologySchema) {
    out.topologies.push_back({path, topology_from_json(doc, where)});
  } else if (schema == kPredictionSchema) {
    out.predictions.push_back({path, prediction_from_json(doc, where), from.tool_version, from.command_line});
  } else if (schema == kReplaySchema) {
    out.replays.push_back({path, replay_from_json(doc, where), from.tool_version, from.command_line});
  } else {
    out.traces.push_back({path, trace_from_json(doc, where), "", from.command_line});
  }
}

// The files of one INPUT or --baseline, each added; returns them.
std::vector<std::string> add_input(ReportInputs& out, const std::string& flag, const std::string& input,
                                   bool baseline) {
  const LogArgument arg = split_log_argument(flag, input);  // FILE:OP, a log that does not name its op
  const auto files = expand_input(flag, arg.path);
  const bool folder = files.size() != 1 || files.front() != arg.path;
  if (folder && !arg.op.empty()) {
    throw UsageError(flag + " " + input + ": a folder; FILE:OP gives the op of one nccl-tests log");
  }
  for (const auto& file : files) add_file(out, flag, file, folder, baseline, arg.op);
  return files;
}

std::vector<std::string> add_baseline(ReportInputs& out, const std::string& baseline) {
  const auto files = add_input(out, "--baseline", baseline, true);
  // A folder whose files are all of other kinds (a report's, traces, a prediction) gave no baseline, and
  // the report went on as if none had been asked for.
  if (out.baseline.empty() && !out.fleet) {
    throw UsageError("--baseline " + baseline +
                     ": none of its .json files is a results file (pipebench.results/1) or a fleet baseline; nothing "
                     "to compare against");
  }
  return files;
}

}  // namespace

std::vector<std::string> expand_input(const std::string& flag, const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) throw UsageError(flag + " " + path + ": does not exist");
  if (S_ISREG(st.st_mode)) return {path};
  if (!S_ISDIR(st.st_mode)) throw UsageError(flag + " " + path + ": not a regular file or folder");
  const std::vector<std::string> files = list_folder_inputs(flag, path, [](const std::string& name) {
    return fs::path(name).extension() == ".json" && name != "report.json";
  });
  if (files.empty()) throw UsageError(flag + " " + path + ": a folder with no .json file");
  return files;
}

ReportInputs load_report_inputs(const std::vector<std::string>& inputs, const std::string& baseline) {
  ReportInputs out;
  if (inputs.empty()) throw UsageError("report: no INPUT (results files, run folders, topology, prediction)");
  for (const auto& input : inputs) {
    add_input(out, "INPUT", input, false);
  }
  if (!baseline.empty()) add_baseline(out, baseline);
  return out;
}

std::vector<std::string> check_baseline(const std::string& baseline) {
  ReportInputs out;
  return add_baseline(out, baseline);
}

}  // namespace pipebench
