// SPDX-License-Identifier: Apache-2.0
// The bus a GPU model is built for, from its name alone: what a report holds measured bus bandwidth against
// where no topology of the node is known (an imported nccl-tests log names its GPUs' models and nothing
// else of the machine). PCIe generation and width of the board (x16 for every model listed), or the NVLink
// links of an SXM module; the per-direction rates are those of topology/link_bandwidth.h (shared reference
// topology.md §3.3). A board may sit in a slot narrower or slower than its own link: the bus of the model is
// the most the node can give, which is what a qualification holds a slow node against.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace pipebench {

struct ModelBus {
  std::string label;  // "PCIe Gen4 x16", "NVLink x18"
  double gbps = 0;    // theoretical GB/s per direction
  // The band of bus bandwidth such a bus gives large messages, as fractions of gbps (topology/link_band.h):
  // PCIe from the no-P2P path through host memory (0.38, the lowest a healthy node gives) to P2P (0.87),
  // since the path between the GPUs is not known; NVLink the NVLink band.
  double low_fraction = 0, high_fraction = 0;
  std::string band_source;
};

// nullopt for a model not in the table (an unknown or ambiguous name: "H100" alone is SXM or PCIe).
// nvswitch_reduces: the op may be reduced in an NVSwitch fabric (OpTraits::nvswitch_reduces).
[[nodiscard]] std::optional<ModelBus> bus_of_gpu_model(std::string_view model, bool nvswitch_reduces);

}  // namespace pipebench
