// SPDX-License-Identifier: Apache-2.0
// A prediction's pass-cost terms.
#include "service/pass_cost_terms.h"

#include "core/printf_string.h"
#include "report/pass_costs_printer.h"

namespace pipebench {

std::vector<std::string> use_pass_costs(const std::optional<PassCosts>& recorded, const PassCostFlags& given,
                                        ComputeModel& compute) {
  std::vector<std::string> sources;
  if (given.pass_gap_us) {
    compute.pass_overhead_ms = *given.pass_gap_us / 1e3;
    sources.push_back(printf_string("pass-gap (%.1f us per pass, --pass-gap-us)", *given.pass_gap_us));
  } else if (recorded) {
    compute.pass_overhead_ms = recorded->sync_gap_us.median_us / 1e3;
    sources.push_back(printf_string("pass-gap (%.1f us per pass, %s)", recorded->sync_gap_us.median_us,
                                    pass_costs_origin(*recorded).c_str()));
  }
  if (given.comm_sm_slowdown) {
    compute.comm_sm_slowdown = *given.comm_sm_slowdown;
  } else if (recorded) {
    compute.comm_sm_slowdown = recorded->comm_sm_slowdown();
    sources.push_back(printf_string("comm-sm-slowdown (%.3f, %s%s)", compute.comm_sm_slowdown,
                                    pass_costs_origin(*recorded).c_str(),
                                    recorded->serialised() ? "; the GEMMs waited for NCCL's kernels" : ""));
  }
  return sources;
}

}  // namespace pipebench
