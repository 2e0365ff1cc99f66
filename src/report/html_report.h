// SPDX-License-Identifier: Apache-2.0
// The report as one self-contained HTML page: inline CSS (with a print stylesheet) and inline SVG, no
// script, and nothing loaded from anywhere (no fonts, images or links to the network).
#pragma once

#include <string>

#include "report/report_document.h"

namespace pipebench {

[[nodiscard]] std::string render_html(const ReportDocument& doc);

}  // namespace pipebench
