// SPDX-License-Identifier: Apache-2.0
// Report blocks.
#include "report/block_builder.h"

#include <algorithm>

namespace pipebench {

void BlockBuilder::heading(const std::string& text, int level) {
  Block b;
  b.kind = Block::Kind::kHeading, b.level = level, b.text = text;
  blocks_.push_back(std::move(b));
}

void BlockBuilder::para(const std::string& text, const std::string& css) {
  Block b;
  b.kind = Block::Kind::kParagraph, b.text = text, b.css_class = css;
  blocks_.push_back(std::move(b));
}

void BlockBuilder::list(std::vector<std::string> items) {
  Block b;
  b.kind = Block::Kind::kList, b.items = std::move(items);
  blocks_.push_back(std::move(b));
}

void BlockBuilder::table(std::vector<std::string> header, std::vector<std::vector<std::string>> rows,
                         std::vector<std::string> classes, std::string summary) {
  const std::size_t total = rows.size();
  if (total > max_rows_) rows.resize(max_rows_);
  if (classes.size() > max_rows_) classes.resize(max_rows_);
  Block b;
  b.kind = Block::Kind::kTable, b.items = std::move(header), b.rows = std::move(rows);
  b.row_class = std::move(classes);
  b.summary = std::move(summary);
  blocks_.push_back(std::move(b));
  if (total > max_rows_)
    para(std::to_string(total - max_rows_) + " more rows not shown (" + where_rest_ + ").", "note");
}

std::string status_css(Status s) {
  std::string n = status_name(s);
  std::transform(n.begin(), n.end(), n.begin(), [](unsigned char c) { return static_cast<char>(c + 32); });
  return n;
}

void BlockBuilder::verdict(Status s, const std::string& text) {
  Block b;
  b.kind = Block::Kind::kVerdict, b.text = text, b.css_class = status_css(s);
  blocks_.push_back(std::move(b));
}

void BlockBuilder::verdict_css(const std::string& css) {
  if (!blocks_.empty()) blocks_.back().css_class = css;
}

void BlockBuilder::plot(std::size_t i) {
  Block b;
  b.kind = Block::Kind::kPlot, b.plot = i;
  blocks_.push_back(std::move(b));
}

}  // namespace pipebench
