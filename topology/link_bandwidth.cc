// SPDX-License-Identifier: Apache-2.0
// PCIe and NVLink bandwidth tables.
#include "topology/link_bandwidth.h"

#include <cstdlib>

namespace pipebench {

double pcie_gbps(int gen, int width) {
  // GB/s per lane and direction: raw GT/s x encoding efficiency / 8 bits (PCI-SIG base specs).
  static constexpr double kPerLane[] = {
      0, 0.25, 0.5, 8.0 * 128 / 130 / 8, 16.0 * 128 / 130 / 8, 32.0 * 128 / 130 / 8, 64.0 * 242 / 256 / 8};
  if (gen < 1 || gen > 6 || width <= 0) return 0;
  return kPerLane[gen] * width;
}

int pcie_gen_from_speed(std::string_view text) {
  const double gt = std::atof(std::string(text).c_str());
  if (gt <= 0) return 0;
  if (gt < 4) return 1;
  if (gt < 7) return 2;
  if (gt < 12) return 3;
  if (gt < 24) return 4;
  if (gt < 48) return 5;
  return 6;
}

double nvlink_gbps_per_link(std::string_view model) {
  auto has = [&](const char* s) { return model.find(s) != std::string_view::npos; };
  if (has("B100") || has("B200") || has("B300") || has("GB200")) return 50;
  if (has("H100") || has("H200") || has("H800") || has("H20") || has("GH200")) return 25;
  if (has("A100") || has("A800") || has("V100")) return 25;
  if (has("3090") || has("A6000") || has("A40") || has("A5000")) return 14.0625;
  if (has("P100")) return 20;
  return 0;
}

double nvlink_gbps_for_nvml_version(int v) {
  if (v == 1) return 20;
  if (v >= 2 && v <= 6) return 25;
  if (v == 7 || v == 8) return 50;
  return 0;
}

std::string pcie_label(int gen, int width) {
  std::string s;
  if (gen > 0) s += "Gen" + std::to_string(gen);
  if (width > 0) s += (s.empty() ? "x" : " x") + std::to_string(width);
  return s.empty() ? "?" : s;
}

}  // namespace pipebench
