// SPDX-License-Identifier: Apache-2.0
// NVML loaded at run time (dlopen of libnvidia-ml.so.1, as NCCL does), so pipebench builds and runs
// where NVML is absent. Gives each GPU's PCIe generation/width (current and max) and its NVLinks.
#pragma once

#include <string>

#include "topology/topology.h"

namespace pipebench {

// Joins NVML's GPUs to t.gpus on the bus id. Returns false (with why) when NVML cannot be used;
// then the topology is classified from PCIe alone.
bool enrich_with_nvml(Topology& t, std::string* why);

}  // namespace pipebench
