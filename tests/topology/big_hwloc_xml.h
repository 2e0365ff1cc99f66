// SPDX-License-Identifier: Apache-2.0
// A valid hwloc 2 XML export of a machine with any number of GPUs, for the scaling tests and the
// topology benchmark: two packages (one NUMA node each), one host bridge per 8 GPUs, under it a PCIe
// switch per 2 GPUs and a NIC (mlx5_N) on every other pair of host bridges; the GPUs as PCI devices of class 0302 and,
// with `nvlink`, an NVLinkBandwidth matrix (hwloc's NVML backend) joining GPUs in groups of 8 with 18
// links each (H100 SXM numbers, as the fixture pipebench-h200-vm.xml). The layout follows the fixture
// pipebench-two-switch-levels.xml.
#pragma once

#include <cstddef>
#include <cstdio>
#include <fstream>
#include <string>

namespace pipebench::testing {

inline void write_big_hwloc_xml(const std::string& path, std::size_t gpus, bool nvlink) {
  std::ofstream out(path);
  const std::size_t bridges = (gpus + 7) / 8;
  int gp = 100;
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!DOCTYPE topology SYSTEM \"hwloc2.dtd\">\n"
      << "<topology version=\"2.0\">\n"
      << "<object type=\"Machine\" os_index=\"0\" cpuset=\"0x00000003\" complete_cpuset=\"0x00000003\" "
         "allowed_cpuset=\"0x00000003\" nodeset=\"0x00000003\" complete_nodeset=\"0x00000003\" "
         "allowed_nodeset=\"0x00000003\" gp_index=\"1\">\n"
      << " <info name=\"HostName\" value=\"big" << gpus << "\"/>\n";
  for (int pkg = 0; pkg < 2; ++pkg) {
    const char* set = pkg == 0 ? "0x00000001" : "0x00000002";
    out << " <object type=\"Package\" os_index=\"" << pkg << "\" cpuset=\"" << set << "\" complete_cpuset=\"" << set
        << "\" nodeset=\"" << set << "\" complete_nodeset=\"" << set << "\" gp_index=\"" << 2 + pkg * 4 << "\">\n"
        << "  <info name=\"CPUVendor\" value=\"GenuineIntel\"/>\n"
        << "  <object type=\"NUMANode\" os_index=\"" << pkg << "\" cpuset=\"" << set << "\" complete_cpuset=\"" << set
        << "\" nodeset=\"" << set << "\" complete_nodeset=\"" << set << "\" gp_index=\"" << 3 + pkg * 4
        << "\" local_memory=\"68719476736\"/>\n"
        << "  <object type=\"PU\" os_index=\"" << pkg << "\" cpuset=\"" << set << "\" complete_cpuset=\"" << set
        << "\" nodeset=\"" << set << "\" complete_nodeset=\"" << set << "\" gp_index=\"" << 4 + pkg * 4 << "\"/>\n";
    for (std::size_t hb = static_cast<std::size_t>(pkg); hb < bridges; hb += 2) {
      // Bus numbers: host bridge hb owns domain hb (so any count of GPUs has unique bus ids).
      char range[48];
      std::snprintf(range, sizeof range, "%04zx:[00-ff]", hb);
      out << "  <object type=\"Bridge\" gp_index=\"" << gp++ << "\" bridge_type=\"0-1\" depth=\"0\" bridge_pci=\""
          << range << "\">\n";
      for (std::size_t sw = 0; sw < 4 && hb * 8 + sw * 2 < gpus; ++sw) {
        char bus[32], sub[48];
        std::snprintf(bus, sizeof bus, "%04zx:%02zx:00.0", hb, 0x10 * (sw + 1));
        std::snprintf(sub, sizeof sub, "%04zx:[%02zx-%02zx]", hb, 0x10 * (sw + 1) + 1, 0x10 * (sw + 1) + 2);
        out << "   <object type=\"Bridge\" gp_index=\"" << gp++ << "\" bridge_type=\"1-1\" depth=\"1\" bridge_pci=\""
            << sub << "\" pci_busid=\"" << bus
            << "\" pci_type=\"0604 [1000:c030] [0000:0000] 00\" pci_link_speed=\"31.507692\">\n";
        for (std::size_t k = 0; k < 2; ++k) {
          const std::size_t g = hb * 8 + sw * 2 + k;
          if (g >= gpus) break;
          std::snprintf(bus, sizeof bus, "%04zx:%02zx:00.0", hb, 0x10 * (sw + 1) + 1 + k);
          out << "    <object type=\"PCIDev\" gp_index=\"" << gp++ << "\" pci_busid=\"" << bus
              << "\" pci_type=\"0302 [10de:2330] [10de:16c1] a1\" pci_link_speed=\"31.507692\">\n"
              << "     <info name=\"PCIVendor\" value=\"NVIDIA Corporation\"/>\n"
              << "     <info name=\"PCIDevice\" value=\"H100 SXM5 80GB\"/>\n"
              << "     <object type=\"OSDev\" gp_index=\"" << 1000000 + g << "\" name=\"nvml" << g
              << "\" subtype=\"NVML\" osdev_type=\"1\"/>\n"
              << "    </object>\n";
        }
        out << "   </object>\n";
      }
      if (hb % 4 < 2) {  // one NIC per 16 GPUs: 256 NICs (the limit) at 4096 GPUs
        char nic[32];
        std::snprintf(nic, sizeof nic, "%04zx:%02x:00.0", hb, 0x60);
        const int nic_gp = gp;
        gp += 2;
        out << "   <object type=\"PCIDev\" gp_index=\"" << nic_gp << "\" pci_busid=\"" << nic
            << "\" pci_type=\"0207 [15b3:101b] [15b3:0007] 00\" pci_link_speed=\"31.507692\">\n"
            << "    <object type=\"OSDev\" gp_index=\"" << nic_gp + 1 << "\" name=\"mlx5_" << hb
            << "\" osdev_type=\"3\"/>\n"
            << "   </object>\n";
      }
      out << "  </object>\n";
    }
    out << " </object>\n";
  }
  out << "</object>\n";
  if (nvlink && gpus > 1) {
    // 18 links x 25 GB/s = 450000 MB/s between GPUs of one group of 8, 0 otherwise.
    out << "<distances2 type=\"OSDev\" nbobjs=\"" << gpus
        << "\" kind=\"25\" name=\"NVLinkBandwidth\" indexing=\"gp\">\n"
        << " <indexes length=\"";
    std::string text;  // hwloc reads `length` characters of content
    for (std::size_t g = 0; g < gpus; ++g) text += std::to_string(1000000 + g) + ' ';
    out << text.size() << "\">" << text << "</indexes>\n";
    for (std::size_t i = 0; i < gpus; ++i) {
      text.clear();
      for (std::size_t j = 0; j < gpus; ++j) text += i != j && i / 8 == j / 8 ? "450000 " : "0 ";
      out << " <u64values length=\"" << text.size() << "\">" << text << "</u64values>\n";
    }
    out << "</distances2>\n";
  }
  out << "</topology>\n";
}

}  // namespace pipebench::testing
