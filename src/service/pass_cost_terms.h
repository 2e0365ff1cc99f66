// SPDX-License-Identifier: Apache-2.0
// What a prediction takes from the pass costs a results file records (bench --plan and run on rank 0's GPU,
// io/pass_costs_io.h) where no profile gives its compute: the GPU idle after a P2P call's synchronisation
// becomes every pass's overhead, and the slowdown of the layer's GEMMs beside NCCL's kernels the
// --comm-sm-slowdown; a flag the user gave wins over the recorded term (a what-if). Each term set is named
// among the prediction's cost sources with where it came from (src/sim/README.md, what a pass pays).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "backend/pass_costs.h"
#include "sim/compute_model.h"

namespace pipebench {

struct PassCostFlags {
  std::optional<double> comm_sm_slowdown;  // --comm-sm-slowdown F
  std::optional<double> pass_gap_us;       // --pass-gap-us X
};

// Sets compute.pass_overhead_ms and compute.comm_sm_slowdown from `given`, else from `recorded`; a term
// neither gives keeps its value. Returns the cost sources of the terms set by --pass-gap-us or by
// `recorded`: "pass-gap (25.0 us per pass, measured by bench --plan on GPU, median of 50)",
// "comm-sm-slowdown (0.250, measured by ...)", "pass-gap (0.0 us per pass, --pass-gap-us)".
[[nodiscard]] std::vector<std::string> use_pass_costs(const std::optional<PassCosts>& recorded,
                                                      const PassCostFlags& given, ComputeModel& compute);

}  // namespace pipebench
