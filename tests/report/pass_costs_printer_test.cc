// SPDX-License-Identifier: Apache-2.0
// The pass costs as text: every term with its spread, and the --comm-sm-slowdown it gives.
#include "report/pass_costs_printer.h"

#include <gtest/gtest.h>

#include <sstream>

namespace pipebench {
namespace {

Stats term(double min_us, double median_us, double max_us) {
  Stats s;
  s.samples = 50;
  s.min_us = min_us;
  s.median_us = median_us;
  s.max_us = max_us;
  return s;
}

PassCosts sample() {
  PassCosts c;
  c.gpu = "NVIDIA H100 80GB HBM3";
  c.p2p_bytes = 65536;
  c.device_max_connections = "1";
  c.call_device_us = term(18.5, 20, 31);
  c.call_host_us = term(40, 45, 90);
  c.sync_gap_us = term(21, 25, 60);
  c.gemm_alone_us = term(990, 1000, 1100);
  c.gemm_beside_nccl_us = term(1200, 1250, 1400);
  c.nccl_beside_us = 1500;
  return c;
}

TEST(PassCostsPrinter, EveryTermWithItsSpreadAndTheSlowdownItGives) {
  std::ostringstream out;
  print_pass_costs(out, "pass costs", sample());
  EXPECT_EQ(out.str(),
            "# pass costs: a P2P call as Megatron issues it (send + receive of 65536 B in one NCCL group, then "
            "cudaDeviceSynchronize; CUDA_DEVICE_MAX_CONNECTIONS 1) on NVIDIA H100 80GB HBM3, median [min-max] of "
            "50:\n"
            "#   on the GPU 20.0 us [18.5-31.0]; on the host, posting to the sync's return 45.0 us [40.0-90.0] (25.0 "
            "us beyond the kernel)\n"
            "#   GPU idle from the call's end to the next pass's first kernel 25.0 us [21.0-60.0]: added to every "
            "pass\n"
            "#   layer forward GEMMs alone 1000.0 us [990.0-1100.0], beside 1500 us of NCCL's send/receive kernels "
            "1250.0 us [1200.0-1400.0]: --comm-sm-slowdown 0.250\n");
  EXPECT_EQ(pass_costs_origin(sample()), "measured by bench --plan on NVIDIA H100 80GB HBM3, median of 50");
}

TEST(PassCostsPrinter, GemmsThatWaitedForNcclSayThereIsNoSmShare) {
  PassCosts c = sample();
  c.device_max_connections.clear();
  c.gemm_beside_nccl_us = term(2500, 2600, 2700);
  std::ostringstream out;
  print_pass_costs(out, "--measure-compute", c);
  EXPECT_NE(out.str().find("# --measure-compute: a P2P call"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("CUDA_DEVICE_MAX_CONNECTIONS unset"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("they ran one after the other (one hardware queue), no SM share: --comm-sm-slowdown 0\n"),
            std::string::npos)
      << out.str();
}

}  // namespace
}  // namespace pipebench
