// SPDX-License-Identifier: Apache-2.0
#include "app/report_inputs.h"

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>

#include "core/error.h"
#include "core/json_file.h"

namespace pipebench {

namespace {

namespace fs = std::filesystem;

enum class InputKind { kResults, kTopology, kPrediction, kReplay };

InputKind kind_of(const std::string& flag, const std::string& path, const std::string& schema) {
  if (schema == "pipebench.results/1") return InputKind::kResults;
  if (schema == "pipebench.topology/1") return InputKind::kTopology;
  if (schema == "pipebench.prediction/1") return InputKind::kPrediction;
  if (schema == "pipebench.replay/1") return InputKind::kReplay;
  throw UsageError(flag + " " + path + ": schema '" + schema +
                   "' is not an input of report (pipebench.results/1, pipebench.topology/1, "
                   "pipebench.prediction/1, pipebench.replay/1)");
}

// Reading a schema's fields into the report model is the schema layer's work (src/io); this is where
// its readers plug in.
void add_file(ReportInputs& out, const std::string& flag, const std::string& path, bool baseline) {
  const InputKind kind = kind_of(flag, path, schema_of(flag, path));
  if (baseline && kind != InputKind::kResults) {
    throw UsageError(flag + " " + path + ": a baseline is a results file (pipebench.results/1)");
  }
  (void)out;
  throw UsageError(flag + " " + path + ": reading this schema needs the schema layer (src/io), not built in");
}

}  // namespace

std::vector<std::string> expand_input(const std::string& flag, const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) throw UsageError(flag + " " + path + ": does not exist");
  if (S_ISREG(st.st_mode)) return {path};
  if (!S_ISDIR(st.st_mode)) throw UsageError(flag + " " + path + ": not a regular file or folder");
  std::vector<std::string> files;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(path, ec)) {
    const std::string name = e.path().filename().string();
    if (e.path().extension() == ".json" && name != "report.json" && e.is_regular_file(ec)) {
      files.push_back(e.path().string());
    }
  }
  if (ec) throw UsageError(flag + " " + path + ": cannot be listed (" + ec.message() + ")");
  if (files.empty()) throw UsageError(flag + " " + path + ": a folder with no .json file");
  std::sort(files.begin(), files.end());
  return files;
}

std::string schema_of(const std::string& flag, const std::string& path) {
  const nlohmann::json doc = read_json_file(flag, path);
  if (!doc.is_object() || !doc.contains("schema") || !doc.at("schema").is_string()) {
    throw UsageError(flag + " " + path + ": not a pipebench file (no \"schema\")");
  }
  return doc.at("schema").get<std::string>();
}

ReportInputs load_report_inputs(const std::vector<std::string>& inputs, const std::string& baseline) {
  ReportInputs out;
  if (inputs.empty()) throw UsageError("report: no INPUT (results files, run folders, topology, prediction)");
  for (const auto& input : inputs) {
    out.input_paths.push_back(input);
    for (const auto& file : expand_input("INPUT", input)) add_file(out, "INPUT", file, false);
  }
  if (!baseline.empty()) {
    for (const auto& file : expand_input("--baseline", baseline)) add_file(out, "--baseline", file, true);
  }
  return out;
}

}  // namespace pipebench
