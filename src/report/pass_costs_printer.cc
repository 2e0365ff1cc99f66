// SPDX-License-Identifier: Apache-2.0
// Pass costs as text.
#include "report/pass_costs_printer.h"

#include "core/printf_string.h"

namespace pipebench {
namespace {

std::string spread_us(const Stats& s) { return printf_string("%.1f us [%.1f-%.1f]", s.median_us, s.min_us, s.max_us); }

}  // namespace

void print_pass_costs(std::ostream& out, const std::string& who, const PassCosts& c) {
  out << printf_string(
      "# %s: a P2P call as Megatron issues it (send + receive of %lld B in one NCCL group, then "
      "cudaDeviceSynchronize; CUDA_DEVICE_MAX_CONNECTIONS %s) on %s, median [min-max] of %zu:\n",
      who.c_str(), static_cast<long long>(c.p2p_bytes),
      c.device_max_connections.empty() ? "unset" : c.device_max_connections.c_str(), c.gpu.c_str(),
      c.call_device_us.samples);
  out << "#   on the GPU " << spread_us(c.call_device_us) << "; on the host, posting to the sync's return "
      << spread_us(c.call_host_us) << printf_string(" (%.1f us beyond the kernel)\n", c.call_host_beyond_device_us());
  out << "#   GPU idle from the call's end to the next pass's first kernel " << spread_us(c.sync_gap_us)
      << ": added to every pass\n";
  out << "#   layer forward GEMMs alone " << spread_us(c.gemm_alone_us) << ", beside "
      << printf_string("%.0f us of NCCL's send/receive kernels ", c.nccl_beside_us) << spread_us(c.gemm_beside_nccl_us)
      << (c.serialised() ? ": they ran one after the other (one hardware queue), no SM share: --comm-sm-slowdown 0\n"
                         : printf_string(": --comm-sm-slowdown %.3f\n", c.comm_sm_slowdown()));
}

std::string pass_costs_origin(const PassCosts& c) {
  return printf_string("measured by bench --plan on %s, median of %zu", c.gpu.c_str(), c.sync_gap_us.samples);
}

}  // namespace pipebench
