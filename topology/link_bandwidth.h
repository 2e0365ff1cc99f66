// SPDX-License-Identifier: Apache-2.0
// Theoretical per-direction bandwidth of PCIe and NVLink links (shared reference topology.md §3.3).
#pragma once

#include <string>
#include <string_view>

namespace pipebench {

// GB/s per direction for a PCIe generation (1..6) and width; 0 when either is unknown.
// Per lane: Gen1 0.25, Gen2 0.5 (8b/10b), Gen3 0.985, Gen4 1.969, Gen5 3.938 (128b/130b), Gen6 7.56
// (FLIT) GB/s — the same formula hwloc uses for pcidev.linkspeed (pci-common.c).
[[nodiscard]] double pcie_gbps(int gen, int width);

// PCIe generation from a speed text: "2.5 GT/s", "8 GT/s", "16.0 GT/s PCIe"; 0 when unknown.
[[nodiscard]] int pcie_gen_from_speed(std::string_view text);

// Per-link, per-direction NVLink bandwidth for a GPU model (P100 20, V100/A100/H100/H200 25, GA10x
// ~14.06, B200 50 GB/s); 0 when the model is not known.
[[nodiscard]] double nvlink_gbps_per_link(std::string_view gpu_model);

// The same from an NVML NVLink version enum (1=1.0 ... 6=4.0, 7=5.0); 0 when unknown.
[[nodiscard]] double nvlink_gbps_for_nvml_version(int version);

// "Gen4 x16" (or "x16", "Gen4", "?").
[[nodiscard]] std::string pcie_label(int gen, int width);

}  // namespace pipebench
