// SPDX-License-Identifier: Apache-2.0
// NCCL topology XML import with tinyxml2. NCCL models no host bridge or root port: devices under one
// <cpu> meet there (NCCL's PHB; nvidia-smi might say NODE), a <pci class="0x0604..."> is one switch.
#include "topology/nccl_xml.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <map>

#include "core/error.h"
#include "core/file_io.h"
#include "core/word_lists.h"
#include "topology/link_bandwidth.h"
#include "topology/topology_checks.h"

#if PB_HAVE_TINYXML2
#include <tinyxml2.h>
#endif

namespace pipebench {

#if !PB_HAVE_TINYXML2

bool built_with_xml_parser() { return false; }

Topology parse_nccl_xml(const std::string& flag, const std::string&) {
  throw UsageError(flag + ": this pipebench was built without an XML parser (install libtinyxml2-dev and rebuild)");
}

#else

bool built_with_xml_parser() { return true; }

namespace {

// tinyxml2's ErrorStr() is its own dump ("Error=XML_ERROR_MISMATCHED_ELEMENT ErrorID=14 (0xe) Line number=3:
// XMLElement name=pci"): the reason in words instead, and the line where tinyxml2 knows it (0: it does not).
std::string xml_error(const tinyxml2::XMLDocument& doc) {
  std::string why;
  switch (doc.ErrorID()) {
    case tinyxml2::XML_ERROR_FILE_NOT_FOUND:
    case tinyxml2::XML_ERROR_FILE_COULD_NOT_BE_OPENED:
    case tinyxml2::XML_ERROR_FILE_READ_ERROR:
      why = "cannot be read";
      break;
    case tinyxml2::XML_ERROR_MISMATCHED_ELEMENT:
      why = "an end tag that does not match its element";
      break;
    case tinyxml2::XML_ERROR_PARSING_ATTRIBUTE:
      why = "a malformed or repeated attribute";
      break;
    case tinyxml2::XML_ERROR_EMPTY_DOCUMENT:
      why = "no element";
      break;
    case tinyxml2::XML_ERROR_PARSING_COMMENT:
      why = "a comment not closed";
      break;
    case tinyxml2::XML_ERROR_PARSING_CDATA:
      why = "a CDATA section not closed";
      break;
    default:
      why = "an element, text or declaration that cannot be read";
  }
  return doc.ErrorLineNum() > 0 ? "line " + std::to_string(doc.ErrorLineNum()) + ": " + why : why;
}

std::string attr(const tinyxml2::XMLElement* e, const char* name) {
  const char* v = e->Attribute(name);
  return v ? v : "";
}

unsigned long hex(const std::string& s) { return s.empty() ? 0 : std::strtoul(s.c_str(), nullptr, 16); }

// NCCL's cpu affinity "0000ffff,ff000000" (32-bit groups, most significant first) as a CPU list "24-47".
std::string affinity_list(const std::string& mask) {
  std::vector<unsigned long> groups;
  for (const auto& group : split_list(mask)) groups.push_back(hex(group));
  std::reverse(groups.begin(), groups.end());
  std::string out;
  int run_start = -1;
  const int bits = static_cast<int>(groups.size()) * 32;
  for (int b = 0; b <= bits; ++b) {
    const bool set = b < bits && (groups[static_cast<std::size_t>(b / 32)] >> (b % 32)) & 1u;
    if (set && run_start < 0) run_start = b;
    if (!set && run_start >= 0) {
      out +=
          (out.empty() ? "" : ",") + std::to_string(run_start) + (b - 1 > run_start ? "-" + std::to_string(b - 1) : "");
      run_start = -1;
    }
  }
  return out;
}

// Per-link NVLink bandwidth from the compute capability NCCL records (sm="80").
double nvlink_gbps_for_sm(int sm) {
  if (sm == 60) return 20;
  if (sm == 86) return 14.0625;
  if (sm >= 100) return 50;
  return sm >= 70 ? 25 : 0;
}

class Parser {
 public:
  Parser(std::string flag, std::string path) : flag_(std::move(flag)), path_(std::move(path)) {}

  Topology parse(const tinyxml2::XMLElement* system) {
    TopoNode root;
    root.label = "system";
    t_.nodes.push_back(root);
    for (auto* e = system->FirstChildElement(); e; e = e->NextSiblingElement()) element(e, 0, -1, "");
    finish();
    return std::move(t_);
  }

 private:
  struct RawGpu {
    Gpu gpu;
    int sm = 0;
    std::vector<std::pair<std::string, int> > direct;  // target bus id, count
    int fabric = 0;
    bool dumped = false;  // has a <gpu> child: the file was written by NCCL on the machine
  };

  // link_speed "16.0 GT/s PCIe": empty is unknown; not a number or beyond PCIe is a problem.
  int link_gen(const tinyxml2::XMLElement* e, const std::string& bus_id) {
    const std::string text = attr(e, "link_speed");
    if (text.empty()) return 0;
    char* end = nullptr;
    const double gts = std::strtod(text.c_str(), &end);
    if (end == text.c_str() || !std::isfinite(gts) || gts < 0 || gts > kMaxPcieGts) {
      t_.problems.push_back(flag_ + " " + path_ + ": link_speed \"" + text.substr(0, 40) + "\" of " + bus_id +
                            " is not a PCIe speed: ignored, the link is taken as unknown");
      return 0;
    }
    return pcie_gen_from_speed(text);
  }

  // link_width: 0 or absent is unknown (NCCL then assumes x16); anything but a PCIe width is a problem.
  int link_width(const tinyxml2::XMLElement* e, const std::string& bus_id) {
    const std::string text = attr(e, "link_width");
    if (text.empty()) return 0;
    char* end = nullptr;
    errno = 0;
    const long long lanes = std::strtoll(text.c_str(), &end, 10);
    if (end == text.c_str() || *end != '\0' || errno != 0 || (lanes != 0 && !is_pcie_width(lanes))) {
      t_.problems.push_back(flag_ + " " + path_ + ": link_width \"" + text.substr(0, 40) + "\" of " + bus_id +
                            " is not a PCIe width: ignored, the link is taken as unknown");
      return -1;  // unknown and not to be read as x16
    }
    return static_cast<int>(lanes);
  }

  void element(const tinyxml2::XMLElement* e, int parent, int numa, const std::string& cpuset) {
    const std::string tag = e->Name();
    if (tag == "cpu") {
      TopoNode n;
      n.parent = parent;
      n.ncclish_cpu = true;
      const int id = std::atoi(attr(e, "numaid").c_str());
      n.numa = {id};
      n.label = "CPU numa " + std::to_string(id);
      if (t_.cpu_vendor.empty()) t_.cpu_vendor = attr(e, "vendor");
      const int node = push(n);
      const std::string cpus = affinity_list(attr(e, "affinity"));
      for (auto* c = e->FirstChildElement(); c; c = c->NextSiblingElement()) element(c, node, id, cpus);
    } else if (tag == "pci") {
      pci(e, parent, numa, cpuset);
    } else if (tag == "nic") {
      for (auto* c = e->FirstChildElement("net"); c; c = c->NextSiblingElement("net")) {
        Nic nic;
        nic.name = attr(c, "name");
        nic.numa = numa;
        nic.rdma = attr(c, "gdr") == "1" || nic.name.rfind("mlx", 0) == 0 || nic.name.rfind("ib", 0) == 0;
        const TopoNode& p = t_.nodes[static_cast<std::size_t>(parent)];
        if (p.kind == NodeKind::kDevice) {  // <nic> inside its <pci>
          nic.node = parent;
          nic.bus_id = p.bus_id;
        }
        t_.nics.push_back(nic);
      }
    } else if (tag == "gpu" || tag == "nvlink" || tag == "c2c" || tag == "pcilink" || tag == "net") {
      // read by their parents
    } else {
      t_.notes.push_back(flag_ + " " + path_ + ": unknown tag <" + tag + "> at line " +
                         std::to_string(e->GetLineNum()) + " skipped");
    }
  }

  void pci(const tinyxml2::XMLElement* e, int parent, int numa, const std::string& cpuset) {
    TopoNode n;
    n.parent = parent;
    n.bus_id = normalize_bus_id(attr(e, "busid"));
    const unsigned long cls = hex(attr(e, "class"));
    n.kind = (cls >> 8) == 0x0604 ? NodeKind::kBridge : NodeKind::kDevice;
    n.is_switch = n.kind == NodeKind::kBridge;
    n.label = n.bus_id;
    n.link_gen = link_gen(e, n.bus_id);
    n.link_width = link_width(e, n.bus_id);
    n.link_gbps = n.link_width < 0 ? 0 : pcie_gbps(n.link_gen, n.link_width > 0 ? n.link_width : 16);  // 0: x16 (NCCL)
    n.link_width = std::max(n.link_width, 0);
    const int node = push(n);
    // NCCL takes PCI class 0x03 as a GPU (its kvDictPciClass); hand-written files such as Azure's
    // ND-series ones name neither the vendor nor a <gpu> child.
    const std::string vendor_text = attr(e, "vendor");
    const unsigned long vendor = hex(vendor_text);
    const bool display = n.kind == NodeKind::kDevice && (cls >> 16) == 0x03;
    if (display && !vendor_text.empty() && vendor != 0x10de && vendor != 0xffff) {
      t_.notes.push_back(flag_ + " " + path_ + ": display device " + n.bus_id + " of vendor " + vendor_text +
                         " is not an NVIDIA GPU; skipped");
    }
    if (display && (vendor_text.empty() || vendor == 0x10de || vendor == 0xffff)) {
      RawGpu g;
      g.gpu.node = node;
      g.gpu.bus_id = n.bus_id;
      g.gpu.numa = numa;
      g.gpu.cpuset = cpuset;
      if (const auto* ge = e->FirstChildElement("gpu")) {
        g.dumped = true;
        g.sm = std::atoi(attr(ge, "sm").c_str());
        for (auto* l = ge->FirstChildElement("nvlink"); l; l = l->NextSiblingElement("nvlink")) {
          const std::string target = normalize_bus_id(attr(l, "target"));
          const int count = std::atoi(attr(l, "count").c_str());
          const unsigned long tclass = hex(attr(l, "tclass"));
          if (target == n.bus_id) {
            t_.notes.push_back(flag_ + " " + path_ + ": GPU " + n.bus_id +
                               " has an NVLink entry pointing at itself; ignored");
          } else if (tclass == 0x068000) {
            g.fabric += count;  // NVSwitch (or a hidden switch)
          } else if ((tclass >> 16) == 0x03) {
            g.direct.emplace_back(target, count);
          }
        }
      }
      const std::string device = attr(e, "device");
      g.gpu.model = device.empty() ? std::string("GPU (PCI class ") + attr(e, "class") + ")"
                                   : "NVIDIA [10de:" + device.substr(device.size() > 4 ? device.size() - 4 : 0) + "]" +
                                         (g.sm ? " sm" + std::to_string(g.sm) : "");
      gpus_.push_back(g);
    } else if (n.kind == NodeKind::kDevice && (cls >> 16) == 0x02 && !e->FirstChildElement("nic")) {
      Nic nic;
      nic.name = n.bus_id;
      nic.node = node;
      nic.bus_id = n.bus_id;
      nic.numa = numa;
      t_.nics.push_back(nic);
    }
    for (auto* c = e->FirstChildElement(); c; c = c->NextSiblingElement()) element(c, node, numa, cpuset);
  }

  int push(const TopoNode& n) {
    t_.nodes.push_back(n);
    return static_cast<int>(t_.nodes.size()) - 1;
  }

  void finish() {
    // A file NCCL dumped lists its GPUs in tree order: number them in PCI bus order as nvidia-smi does. A
    // hand-written file (no <gpu> children) gives no other order than its own: keep file order.
    const bool dumped = std::any_of(gpus_.begin(), gpus_.end(), [](const RawGpu& g) { return g.dumped; });
    if (dumped) {
      std::stable_sort(gpus_.begin(), gpus_.end(),
                       [](const RawGpu& a, const RawGpu& b) { return a.gpu.bus_id < b.gpu.bus_id; });
    }
    const std::size_t n = gpus_.size();
    t_.nvlinks.assign(n, std::vector<int>(n, 0));
    for (std::size_t i = 0; i < n; ++i) {
      gpus_[i].gpu.index = static_cast<int>(i);
      t_.gpus.push_back(gpus_[i].gpu);
      if (gpus_[i].sm) t_.nvlink_gbps_per_link = nvlink_gbps_for_sm(gpus_[i].sm);
      if (!gpus_[i].direct.empty() || gpus_[i].fabric) t_.nvlink_known = true;
    }
    for (std::size_t i = 0; i < n; ++i) {
      for (const auto& [target, count] : gpus_[i].direct) {
        for (std::size_t j = 0; j < n; ++j) {
          if (gpus_[j].gpu.bus_id == target) t_.nvlinks[i][j] += count;
        }
      }
      for (std::size_t j = 0; j < n; ++j) {
        if (i != j && gpus_[i].fabric && gpus_[j].fabric) {
          t_.nvlinks[i][j] = std::max(t_.nvlinks[i][j], std::min(gpus_[i].fabric, gpus_[j].fabric));
        }
      }
    }
  }

  std::string flag_, path_;
  Topology t_;
  std::vector<RawGpu> gpus_;
};

}  // namespace

Topology parse_nccl_xml(const std::string& flag, const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) throw UsageError(flag + " " + path + ": no such file");
  require_input_file(flag, path);  // a FIFO, directory or device: one line, no blocking read
  if (st.st_size == 0) throw UsageError(flag + " " + path + ": the file is empty");
  tinyxml2::XMLDocument doc;
  if (doc.LoadFile(path.c_str()) != tinyxml2::XML_SUCCESS) {
    throw UsageError(flag + " " + path + ": not well-formed XML (truncated?): " + xml_error(doc));
  }
  const auto* system = doc.RootElement();
  if (!system || std::string(system->Name()) != "system") {
    throw UsageError(flag + " " + path + ": not an NCCL topology file (the root element is <" +
                     (system ? system->Name() : "none") + ">, expected <system version=\"1\">" +
                     (system && std::string(system->Name()) == "topology" ? "; for hwloc exports use --xml" : "") +
                     ")");
  }
  Topology t = Parser(flag, path).parse(system);
  t.source = "NCCL XML " + path;
  t.notes.push_back("NCCL XML has no host bridges: devices under one <cpu> are PHB here, nvidia-smi may say NODE");
  return t;
}

#endif

}  // namespace pipebench
