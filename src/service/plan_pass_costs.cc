// SPDX-License-Identifier: Apache-2.0
// A plan's pass costs on rank 0's GPU.
#include "service/plan_pass_costs.h"

#include <algorithm>

#include "core/error.h"
#include "report/pass_costs_printer.h"
#include "sim/layer_gemms.h"

namespace pipebench {

PassCostRequest plan_pass_cost_request(const Plan& plan, int device) {
  PassCostRequest r;
  r.gemms = layer_forward_gemms(plan_layer_dims(plan));
  r.dtype = plan_gemm_dtype(plan);
  r.device = device;
  for (const auto& s : plan.schedules)
    for (const auto& m : s.messages)
      if (m.op.is_p2p()) r.p2p_bytes = std::max(r.p2p_bytes, m.bytes);
  return r;
}

std::optional<PassCosts> measure_plan_pass_costs(const Backend& backend, const Plan& plan, std::ostream& out) {
  const auto not_measured = [&out](const std::string& why) {
    out << "# pass costs: not measured (" << why << ")\n";
    return std::nullopt;
  };
  if (backend.kind() != BackendKind::kNccl) return not_measured("host ranks: no GPU");
  const std::vector<DeviceDescription> devices = backend.devices();
  const auto rank0 = std::find_if(devices.begin(), devices.end(), [](const auto& d) { return d.rank == 0; });
  if (rank0 == devices.end() || rank0->device < 0) return not_measured("rank 0 has no GPU in this process");
  const PassCostRequest request = plan_pass_cost_request(plan, rank0->device);
  if (request.p2p_bytes <= 0) return not_measured("the plan has no P2P message");
#if PB_HAVE_CUBLAS
  // A failure here is this measurement's alone: the plan's messages are measured and written already.
  try {
    PassCosts c = measure_pass_costs(request);
    print_pass_costs(out, "pass costs", c);
    return c;
  } catch (const Error& e) {
    return not_measured(e.what());
  }
#else
  return not_measured("this pipebench was built without cuBLAS");
#endif
}

}  // namespace pipebench
