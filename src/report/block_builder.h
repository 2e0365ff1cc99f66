// SPDX-License-Identifier: Apache-2.0
// BlockBuilder: appends a report's blocks (report/report_document.h) one call per heading, paragraph,
// list, table, verdict or plot. The report's sections and each trace's section use it.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "report/report_document.h"

namespace pipebench {

// "pass", "warn", "fail": the CSS class of a status.
[[nodiscard]] std::string status_css(Status s);

class BlockBuilder {
 public:
  // Tables keep at most max_rows rows; a note says how many more there are and where (`where_rest`).
  BlockBuilder(std::vector<Block>& blocks, std::size_t max_rows, std::string where_rest)
      : blocks_(blocks), max_rows_(max_rows), where_rest_(std::move(where_rest)) {}
  void heading(const std::string& text, int level = 2);
  void para(const std::string& text, const std::string& css = "");
  void list(std::vector<std::string> items);
  // A non-empty `summary` collapses the table under that line (report_document.h, Block::summary).
  void table(std::vector<std::string> header, std::vector<std::vector<std::string>> rows,
             std::vector<std::string> classes = {}, std::string summary = "");
  void verdict(Status s, const std::string& text);
  // Replaces the last block's CSS class (a verdict that judged nothing is "none", grey).
  void verdict_css(const std::string& css);
  void plot(std::size_t i);

 private:
  std::vector<Block>& blocks_;
  std::size_t max_rows_;
  std::string where_rest_;
};

}  // namespace pipebench
