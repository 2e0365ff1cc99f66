// SPDX-License-Identifier: Apache-2.0
// What a pass of a plan pays beyond its bytes (backend/pass_costs.h), measured on rank 0's GPU for the
// plan's P2P message and one layer's forward GEMMs: bench --plan and run record it in their results file,
// predict --measure-compute measures it on GPU 0.
#pragma once

#include <optional>
#include <ostream>

#include "backend/backend.h"
#include "backend/pass_costs.h"
#include "megatron/plan.h"

namespace pipebench {

// The plan's largest P2P message (the activation, or its gradient, of one microbatch; 0 where the plan has
// none), one layer's forward GEMMs in the plan's GEMM type, on CUDA device `device`, 50 samples a term.
[[nodiscard]] PassCostRequest plan_pass_cost_request(const Plan& plan, int device);

// Rank 0 (the caller's choice) measures on the GPU of global rank 0 and prints the terms on `out`; where
// nothing is measured (host ranks, a plan without P2P messages, a build without cuBLAS, a failed
// measurement) one line says why and nothing is returned.
[[nodiscard]] std::optional<PassCosts> measure_plan_pass_costs(const Backend& backend, const Plan& plan,
                                                               std::ostream& out);

}  // namespace pipebench
