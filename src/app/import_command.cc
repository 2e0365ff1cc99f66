// SPDX-License-Identifier: Apache-2.0
// `pipebench import nccl-tests`.
#include "app/import_command.h"

#include <CLI/CLI.hpp>
#include <filesystem>
#include <iostream>

#include "core/distinct_files.h"
#include "core/error.h"
#include "core/file_io.h"
#include "core/json_file.h"
#include "core/printf_string.h"
#include "core/terminal_text.h"
#include "core/utc_timestamp.h"
#include "io/nccl_tests_log.h"

namespace pipebench {

namespace {

void print_test(std::ostream& out, const std::string& path, const NcclTestsLog& log) {
  std::string hosts, models;
  for (const auto& d : log.devices) {
    if (hosts.find(d.host) == std::string::npos) hosts += (hosts.empty() ? "" : ",") + d.host;
    if (models.find(d.model) == std::string::npos) models += (models.empty() ? "" : ", ") + d.model;
  }
  // Host and model names are the log's text: shown as error lines show it (core/terminal_text.h).
  hosts = one_line(hosts);
  models = one_line(models);
  const std::string version = one_line(log.version);
  out << printf_string(
      "%s: %s (%s%s%s), %d ranks%s%s%s, %zu rows", path.c_str(), log.op.empty() ? "op unknown" : log.op.c_str(),
      log.format.c_str(), version.empty() ? "" : ", nccl-tests ", version.c_str(), log.nranks,
      hosts.empty() ? "" : (" on " + hosts).c_str(), models.empty() ? "" : (" (" + models + ")").c_str(),
      log.groups > 1 ? (" in " + std::to_string(log.groups) + " concurrent groups").c_str() : "",
      log.records.size() / 2);
  if (log.avg_busbw_gbps >= 0) {
    out << printf_string(", avg busbw %.4g GB/s", log.avg_busbw_gbps);
  }
  out << (log.concluded ? "" : " (the log ends before its footer)") << "\n";
}

}  // namespace

int run_import_command(const ImportOptions& o, std::ostream& out, std::ostream& err) {
  if (o.source != "nccl-tests") throw UsageError("import " + o.source + ": the format to import is nccl-tests");
  if (o.files.empty()) throw UsageError("import nccl-tests: no FILE (nccl-tests output, text or -J JSON)");
  if (o.nranks < 0 || o.nranks > (1 << 17)) {
    throw UsageError("--nranks " + std::to_string(o.nranks) + ": out of range (1 to 131072)");
  }
  if (!o.json_path.empty()) require_output_path("--json", o.json_path);
  std::vector<FileArg> inputs;
  for (const auto& path : o.files) inputs.push_back({"FILE", path});
  require_distinct_files(inputs, {{"--json", o.json_path}});
  require_distinct_inputs(inputs);
  std::vector<NcclTestsImport> imports;
  std::size_t records = 0;
  for (const auto& path : o.files) {
    NcclTestsHints hints;
    hints.op = o.op;
    hints.nranks = o.nranks;
    hints.file_name = std::filesystem::path(path).filename().string();
    NcclTestsImport imp{path, read_nccl_tests_file("FILE", path, hints)};
    if (!imp.file.refused.empty()) throw UsageError(path + ": " + imp.file.refused + "; nothing imported");
    for (const auto& log : imp.file.logs) {
      print_test(out, path, log);
      records += log.records.size();
    }
    if (imp.file.logs.empty()) out << path << ": no nccl-tests table\n";
    for (const auto& [why, count] : imp.file.skipped) err << path << ": skipped " << count << " " << why << "\n";
    if (imp.file.replaced_bytes > 0) {
      err << path << ": " << imp.file.replaced_bytes << " bytes that are not UTF-8 read as U+FFFD\n";
    }
    imports.push_back(std::move(imp));
  }
  if (records == 0) throw UsageError("import nccl-tests: no whole table row in the files given; nothing written");
  if (!o.json_path.empty()) {
    write_output_file("--json", o.json_path, json_file_text(nccl_tests_results(imports, utc_timestamp()), 2));
    out << "wrote " << o.json_path << ": " << records << " records (pipebench.results/1, source nccl-tests)\n";
  } else {
    out << records << " records read; nothing written (--json OUT writes them)\n";
  }
  return static_cast<int>(ExitCode::kOk);
}

namespace {

class ImportCommand final : public Subcommand {
 public:
  std::string name() const override { return "import"; }
  std::string summary() const override { return "nccl-tests logs (text or -J JSON) as a pipebench results file"; }
  void add_options(CLI::App& sub) override {
    sub.add_option("FORMAT", o_.source, "nccl-tests")->required();
    sub.add_option("FILE", o_.files, "nccl-tests output: the text it printed, or its -J JSON");
    sub.add_option("--json", o_.json_path, "write the pipebench.results/1 file here");
    sub.add_option("--op", o_.op, "the op of logs that do not name it (nccl-tests before 2.17.4)");
    // Checked here: 0 stands for "not given" in ImportOptions, so "--nranks 0" would read as no --nranks.
    sub.add_option("--nranks", o_.nranks, "the rank count of logs without their device lines")
        ->check(CLI::Range(1, 1 << 17));
  }
  // The format comes first: a file given alone (`pipebench import results.log`) is named as such.
  void finish(const CLI::App& /*sub*/, const CommandExtras& /*extras*/) override {
    if (!o_.files.empty()) return;
    const std::string usage = "usage: pipebench import nccl-tests FILE... [flags] (pipebench import --help)";
    if (o_.source == "nccl-tests") throw UsageError("import nccl-tests: no FILE given; " + usage);
    throw UsageError("import: '" + o_.source + "' is not a format (the one format is nccl-tests); " + usage);
  }
  int run(const World* /*world*/) override { return run_import_command(o_, std::cout, std::cerr); }

 private:
  ImportOptions o_;
};

}  // namespace

std::unique_ptr<Subcommand> make_import_command() { return std::make_unique<ImportCommand>(); }

}  // namespace pipebench
