// SPDX-License-Identifier: Apache-2.0
// GPU model names to their bus. Board links from NVIDIA's product briefs and datasheets (PCIe generation
// and width of each board's edge connector; NVLink links per SXM module), as in the shared reference
// topology.md §3.3 (NVLink links per GPU and per-link rate by generation).
#include "topology/gpu_model_bus.h"

#include <algorithm>
#include <cctype>
#include <vector>

#include "topology/link_band.h"
#include "topology/link_bandwidth.h"

namespace pipebench {
namespace {

struct Entry {
  std::vector<const char*> words;  // every one must appear as a whole word of the name, whatever the case
  const char* unless;              // nullptr, or a word that makes the name another board
  int pcie_gen;                    // 0 for NVLink modules
  int nvlinks;                     // links per GPU of an NVLink module
  double gbps_per_nvlink;
};

// Most specific first: "A100 ... PCIe" before "A100 ... SXM4"; the boards of one chip differ in bus.
const std::vector<Entry>& table() {
  static const std::vector<Entry> kTable = {
      // NVLink modules (SXM): links x per-link rate (topology.md §3.3).
      {{"B200"}, nullptr, 0, 18, 50},
      {{"GB200"}, nullptr, 0, 18, 50},
      {{"H100", "HBM3"}, "PCIe", 0, 18, 25},  // "NVIDIA H100 80GB HBM3" is the SXM5 module
      {{"H100", "SXM5"}, nullptr, 0, 18, 25},
      {{"H200"}, "NVL", 0, 18, 25},
      {{"H800"}, "PCIe", 0, 8, 25},  // 8 links, 200 GB/s (shared reference B3: H800 200 nominal)
      {{"A100", "SXM4"}, nullptr, 0, 12, 25},
      {{"V100", "SXM2"}, nullptr, 0, 6, 25},
      {{"V100", "SXM3"}, nullptr, 0, 6, 25},
      // PCIe boards, x16.
      {{"H100", "PCIe"}, nullptr, 5, 0, 0},
      {{"RTX", "5090"}, nullptr, 5, 0, 0},
      {{"A100", "PCIe"}, nullptr, 4, 0, 0},
      {{"RTX", "3090"}, nullptr, 4, 0, 0},
      {{"RTX", "3080"}, nullptr, 4, 0, 0},
      {{"RTX", "4090"}, nullptr, 4, 0, 0},
      {{"RTX", "4080"}, nullptr, 4, 0, 0},
      {{"RTX", "A6000"}, nullptr, 4, 0, 0},
      {{"RTX", "A5000"}, nullptr, 4, 0, 0},
      {{"RTX", "6000", "Ada"}, nullptr, 4, 0, 0},
      {{"A40"}, nullptr, 4, 0, 0},
      {{"A30"}, nullptr, 4, 0, 0},
      {{"A10"}, nullptr, 4, 0, 0},
      {{"L40S"}, nullptr, 4, 0, 0},
      {{"L40"}, nullptr, 4, 0, 0},
      {{"L4"}, nullptr, 4, 0, 0},
      {{"V100", "PCIE"}, nullptr, 3, 0, 0},
      {{"T4"}, nullptr, 3, 0, 0},
      {{"RTX", "2080"}, nullptr, 3, 0, 0},
      {{"TITAN", "RTX"}, nullptr, 3, 0, 0},
  };
  return kTable;
}

std::string upper(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

// `word` as a whole word of `name` (not "A10" in "A100", nor "L4" in "L40S"), whatever the case.
bool has_word(const std::string& name, const char* word) {
  const std::string w = upper(word);
  const auto alnum = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; };
  for (std::size_t at = name.find(w); at != std::string::npos; at = name.find(w, at + 1)) {
    const bool starts = at == 0 || !alnum(name[at - 1]);
    const bool ends = at + w.size() == name.size() || !alnum(name[at + w.size()]);
    if (starts && ends) return true;
  }
  return false;
}

}  // namespace

std::optional<ModelBus> bus_of_gpu_model(std::string_view model, bool nvswitch_reduces) {
  const std::string name = upper(model);
  for (const Entry& e : table()) {
    if (!std::all_of(e.words.begin(), e.words.end(), [&](const char* w) { return has_word(name, w); })) continue;
    if (e.unless != nullptr && has_word(name, e.unless)) continue;
    ModelBus bus;
    if (e.pcie_gen > 0) {
      bus.label = "PCIe " + pcie_label(e.pcie_gen, 16);
      bus.gbps = pcie_gbps(e.pcie_gen, 16);
      // The path between the GPUs is not known: from the band through host memory to the P2P band.
      const auto host = link_band("PHB", false);
      const auto p2p = link_band("PIX", false);
      bus.low_fraction = host->low_fraction;
      bus.high_fraction = p2p->high_fraction;
      bus.band_source = std::string(host->source) + "; " + std::string(p2p->source);
    } else {
      bus.label = "NVLink x" + std::to_string(e.nvlinks);
      bus.gbps = e.nvlinks * e.gbps_per_nvlink;
      const auto band = link_band("NV" + std::to_string(e.nvlinks), nvswitch_reduces);
      bus.low_fraction = band->low_fraction;
      bus.high_fraction = band->high_fraction;
      bus.band_source = std::string(band->source);
    }
    return bus;
  }
  return std::nullopt;
}

}  // namespace pipebench
