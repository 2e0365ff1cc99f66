// SPDX-License-Identifier: Apache-2.0
// Writes a report's three forms into a folder: report.html (self-contained), report.md with its plots
// as SVG files beside it, report.json (pipebench.report/1). `pipebench report` and `pipebench run`
// both end here.
#pragma once

#include <string>
#include <vector>

#include "core/distinct_files.h"
#include "io/report_model.h"
#include "report/rule.h"

namespace pipebench {

struct ReportFiles {
  std::string html, markdown, json;
  Status verdict = Status::kPass;
  std::string verdict_line;  // "PASS: 4 passed, 2 not applied" (report_model.h, verdict_line)
};

// Evaluates `rules` over `inputs` and writes DIR/report.{html,md,json} and the plots' SVG files
// (creating DIR). Returns the exit status: 0 when no rule fails (warnings allowed), 3 when one fails.
// Throws UsageError when DIR or an output path exists as something other than a folder / regular file
// (a device, FIFO or symlink is never replaced), or is one of `input_files` (the files the command read:
// core/distinct_files.h), all before the first file is written; Error when a file cannot be written.
[[nodiscard]] int write_report(const ReportInputs& inputs, const std::vector<Rule>& rules, const std::string& dir,
                               ReportFiles* files = nullptr, const std::vector<FileArg>& input_files = {});

}  // namespace pipebench
