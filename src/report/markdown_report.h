// SPDX-License-Identifier: Apache-2.0
// The report as GitHub-flavoured Markdown: tables as pipe tables, each plot as an image link to its SVG
// file written beside report.md (`plot_file` names it). Every text is escaped: nothing from an input
// becomes Markdown or HTML, and no input text starts a line.
#pragma once

#include <string>

#include "report/report_document.h"

namespace pipebench {

// "busbw-all_reduce-float.svg": the plot's stem with anything but [A-Za-z0-9._-] replaced by '_',
// prefixed by its index so that names never collide.
[[nodiscard]] std::string plot_file(const ReportDocument& doc, std::size_t plot);

[[nodiscard]] std::string render_markdown(const ReportDocument& doc);

}  // namespace pipebench
