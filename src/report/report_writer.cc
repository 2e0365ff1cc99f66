// SPDX-License-Identifier: Apache-2.0
#include "report/report_writer.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>

#include "core/error.h"
#include "core/file_io.h"
#include "core/json_file.h"
#include "io/report_io.h"
#include "report/html_report.h"
#include "report/markdown_report.h"
#include "report/report_document.h"
#include "report/rule_engine.h"

namespace pipebench {

namespace {

// lstat, so that a symlink is seen as itself and never followed.
void check_output(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return;
    throw UsageError("--out " + path + ": " + std::strerror(errno));
  }
  if (!S_ISREG(st.st_mode)) throw UsageError("--out " + path + ": exists and is not a regular file; not replaced");
}

}  // namespace

int write_report(const ReportInputs& inputs, const std::vector<Rule>& rules, const std::string& dir, ReportFiles* files,
                 const std::vector<FileArg>& input_files) {
  make_output_folder("--out", dir);
  const ReportOutcome outcome = evaluate_report(inputs, rules);
  const ReportDocument doc = build_document(inputs, outcome);
  const std::string base = dir + "/report";
  std::vector<std::pair<std::string, std::string>> writes = {
      {base + ".html", render_html(doc)},
      {base + ".md", render_markdown(doc)},
      {base + ".json", json_file_text(report_to_json(inputs, outcome), 1)}};
  for (std::size_t i = 0; i < doc.plots.size(); ++i)
    writes.emplace_back(dir + "/" + plot_file(doc, i), doc.plots[i].svg);
  std::vector<FileArg> outputs;
  for (const auto& [path, text] : writes) {
    check_output(path);  // all checked before any is written
    outputs.push_back({"--out", path});
  }
  require_distinct_files(input_files, outputs);
  for (const auto& [path, text] : writes) write_output_file("", path, text);
  if (files) *files = {base + ".html", base + ".md", base + ".json", outcome.verdict, verdict_line(outcome)};
  return outcome.verdict == Status::kFail ? static_cast<int>(ExitCode::kWrongData) : static_cast<int>(ExitCode::kOk);
}

}  // namespace pipebench
