// SPDX-License-Identifier: Apache-2.0
// The console text of the pass costs (backend/pass_costs.h) that predict --measure-compute, bench --plan
// and run measure: each term with its spread, and what the prediction takes from it.
#pragma once

#include <ostream>
#include <string>

#include "backend/pass_costs.h"

namespace pipebench {

// Four lines, each starting "# ": the call as Megatron issues it, on the GPU and on the host; the GPU idle
// after its synchronisation; the layer's GEMMs alone and beside NCCL's kernels, with the
// --comm-sm-slowdown they give. `who` names the measuring command ("--measure-compute", "pass costs").
void print_pass_costs(std::ostream& out, const std::string& who, const PassCosts& c);

// Where a prediction's pass-cost term came from: "measured by bench --plan on NVIDIA H100 80GB HBM3, median
// of 50".
[[nodiscard]] std::string pass_costs_origin(const PassCosts& c);

}  // namespace pipebench
