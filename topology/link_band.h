// SPDX-License-Identifier: Apache-2.0
// "Is this number normal?": the bus bandwidth a link class reaches in published measurements, as a share of
// the path's theoretical per-direction rate (topology/link_bandwidth.h), and a measured point's place in it.
// The figures and their sources are in the shared reference bandwidth-and-interleaving-figures.md (B3) and
// topology.md §3.3; they are sanity bands, not targets, and hold for large messages only.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace pipebench {

// The size from which a band applies: smaller messages do not reach the plateau (H100 needs > 256 MB,
// A100 about 8 GB to plateau: NVIDIA/nccl-tests#212, #149), so they are shown but not judged.
inline constexpr std::uint64_t kBandMinSizeBytes = std::uint64_t{1} << 30;

struct LinkBand {
  double low_fraction = 0;   // of the path's theoretical GB/s
  double high_fraction = 0;  // above it is not wrong, only unusual (e.g. a path faster than discovered)
  std::string_view kind;     // "NVLink", "PCIe P2P", "no P2P (through host memory)"
  std::string_view source;   // where the figures come from
};

// The band of a link class label (topology/link_class.h: "NV18", "PIX", "SYS"...) for an op, which
// NVSwitch may reduce in the fabric (OpTraits::nvswitch_reduces); nullopt where no published figure fits (X,
// NET, an unknown label).
[[nodiscard]] std::optional<LinkBand> link_band(std::string_view link_class, bool nvswitch_reduces);

// One point against its link.
struct BandCheck {
  double pct_of_link = 0;              // 100 x busbw / link
  double low_gbps = 0, high_gbps = 0;  // the band in GB/s for this link; 0 when there is no band
  bool judged = false;                 // a band exists and the size is >= kBandMinSizeBytes
  bool below = false;                  // judged and busbw < low_gbps
  std::string band_text;  // "normal for NV18 at >= 1 GiB: 338-383 GB/s (NVLink; SOURCE)"; "" without a band
};

// The share of the path's theoretical per-direction rate a point reached: 100 x busbw / link (busbw is
// the bandwidth each rank needs on its link, nccl-tests' doc/PERFORMANCE.md; shared reference
// nccl-tests.md §2, so it compares with the link whatever the op and rank count). nullopt when the link is unknown
// (unset, <= 0 or not finite) or busbw is not a finite value
// >= 0: an unknown share is absent, never 0.
[[nodiscard]] std::optional<double> pct_of_link(double busbw_gbps, std::optional<double> link_gbps);

// nullopt when the link is unknown (link_gbps unset or <= 0) or busbw is not a finite value >= 0.
[[nodiscard]] std::optional<BandCheck> check_band(std::string_view link_class, bool nvswitch_reduces,
                                                  std::optional<double> link_gbps, double busbw_gbps,
                                                  std::uint64_t size_bytes);

}  // namespace pipebench
