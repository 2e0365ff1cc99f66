// SPDX-License-Identifier: Apache-2.0
// The report's built-in check "busbw-in-link-band": every measured point at >= 1 GiB whose link is known
// against the published band of its link class (topology/link_band.h); a point below it is a warning that
// names the host, the ranks and their GPUs' bus ids.
#pragma once

#include <optional>

#include "io/report_model.h"

namespace pipebench {

// nullopt when no point has both a known link (path_min_gbps or a topology) and a link class with a band.
[[nodiscard]] std::optional<RuleOutcome> link_band_outcome(const ReportInputs& inputs);

}  // namespace pipebench
