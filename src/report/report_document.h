// SPDX-License-Identifier: Apache-2.0
// ReportDocument: a report as a list of blocks (headings, paragraphs, tables, plots, the verdict), built
// once from the inputs and the rules' outcome, then written as HTML or Markdown, so that both formats
// show the same content.
#pragma once

#include <string>
#include <vector>

#include "io/report_model.h"
#include "report/report_plots.h"

namespace pipebench {

struct Block {
  enum class Kind { kHeading, kParagraph, kList, kTable, kPlot, kVerdict };
  Kind kind = Kind::kParagraph;
  int level = 2;                               // heading
  std::string text;                            // heading, paragraph, verdict
  std::string css_class;                       // paragraph: "note", "warn", "answer"; verdict: "pass", "warn",
                                               // "fail", "none" (no rule applied); table row: also "none"
  std::vector<std::string> items;              // list; table header
  std::vector<std::vector<std::string>> rows;  // table
  std::vector<std::string> row_class;          // table: per row "", "pass", "warn", "fail"
  std::size_t plot = 0;                        // index into ReportDocument::plots
  std::string summary;  // table: non-empty = collapsed under this line (HTML <details>), for long tables
};

struct ReportDocument {
  std::string title;
  std::vector<Block> blocks;
  std::vector<Plot> plots;
};

// At most this many rows of one table; the rest is counted in a note (report.json keeps up to
// kMaxRulePoints points of each rule, the offending first: report/rule_engine.h).
inline constexpr std::size_t kMaxTableRows = 400;
// A table of a rule's offending points longer than this is collapsed, so that the verdict and the rules
// stay on the first screen.
inline constexpr std::size_t kOpenTableRows = 10;

[[nodiscard]] ReportDocument build_document(const ReportInputs& inputs, const ReportOutcome& outcome);

}  // namespace pipebench
