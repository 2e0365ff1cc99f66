// SPDX-License-Identifier: Apache-2.0
// Published bus-bandwidth bands per link class.
#include "topology/link_band.h"

#include <cmath>
#include <cstdio>

#include "topology/link_class.h"

namespace pipebench {

std::optional<LinkBand> link_band(std::string_view link_class, bool nvswitch_reduces) {
  const std::optional<LinkClass> c = parse_link_class(link_class);
  if (!c || c->across_hosts) return std::nullopt;  // NET: no NIC figure in the references
  switch (c->cls) {
    case PathClass::kNvLink:
      // Low: A100 ~230 of 12 x 25 = 300 GB/s (0.77, NVIDIA/nccl-tests#149, #175), NCCL's own model 20 of 25 GB/s
      // per link (0.8, NVIDIA/nccl#1054). High: ring ops reach ~370 of 450 GB/s on H100 (0.82,
      // NVIDIA/nccl-tests#212); all_reduce with NVLink SHARP reaches ~480 of 450 (1.07, nccl-tests#212,
      // H200 475 in nccl-tests#272) because NVSwitch reduces in the fabric.
      return LinkBand{0.75, nvswitch_reduces ? 1.07 : 0.85, "NVLink",
                      "NVIDIA/nccl-tests#149, #212, #272; NVIDIA/nccl#1054"};
    case PathClass::kPix:
    case PathClass::kPxb:
      // PCIe P2P: ~25-26 of 31.5 GB/s on Gen4 x16 (ZaidQureshi/bam#54, NVIDIA/nvbandwidth README); DMA reaches
      // 12-13, 25-26 and 50-55 GB/s of Gen3/4/5 x16 (topology.md §3.3): 0.76-0.87.
      return LinkBand{0.75, 0.87, "PCIe P2P", "ZaidQureshi/bam#54; NVIDIA/nvbandwidth README"};
    case PathClass::kPhb:
    case PathClass::kNode:
    case PathClass::kSys:
      // Beyond a PCIe switch NCCL's default P2P level (PXB) copies through host memory: ~6-9 GB/s where a
      // Gen3 x16 path (15.75 GB/s) gives ~12 inside a switch (NVIDIA/nccl#406): 0.38-0.57 of the link.
      return LinkBand{0.38, 0.57, "no P2P (through host memory)", "NVIDIA/nccl#406"};
    case PathClass::kSelf:
      break;
  }
  return std::nullopt;
}

std::optional<double> pct_of_link(double busbw_gbps, std::optional<double> link_gbps) {
  if (!link_gbps || !std::isfinite(*link_gbps) || !(*link_gbps > 0)) return std::nullopt;
  if (!std::isfinite(busbw_gbps) || busbw_gbps < 0) return std::nullopt;
  return 100 * busbw_gbps / *link_gbps;
}

std::optional<BandCheck> check_band(std::string_view link_class, bool nvswitch_reduces, std::optional<double> link_gbps,
                                    double busbw_gbps, std::uint64_t size_bytes) {
  const std::optional<double> pct = pct_of_link(busbw_gbps, link_gbps);
  if (!pct) return std::nullopt;
  BandCheck out;
  out.pct_of_link = *pct;
  const std::optional<LinkBand> band = link_band(link_class, nvswitch_reduces);
  if (!band) return out;
  out.low_gbps = band->low_fraction * *link_gbps;
  out.high_gbps = band->high_fraction * *link_gbps;
  out.judged = size_bytes >= kBandMinSizeBytes;
  out.below = out.judged && busbw_gbps < out.low_gbps;
  char buf[256];
  const int digits = out.high_gbps < 100 ? 1 : 0;  // 11.8-13.7 GB/s, 338-383 GB/s
  std::snprintf(buf, sizeof buf, "normal for %.*s at >= 1 GiB: %.*f-%.*f GB/s (%.*s; %.*s)",
                static_cast<int>(link_class.size()), link_class.data(), digits, out.low_gbps, digits, out.high_gbps,
                static_cast<int>(band->kind.size()), band->kind.data(), static_cast<int>(band->source.size()),
                band->source.data());
  out.band_text = buf;
  return out;
}

}  // namespace pipebench
