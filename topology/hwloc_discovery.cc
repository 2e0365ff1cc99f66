// SPDX-License-Identifier: Apache-2.0
// hwloc discovery. Pitfalls handled (topology.md §0): the I/O filter is set before loading (else every
// PCI device is dropped), the common ancestor is our own walk, NVLink counts come from bandwidths
// divided by the per-link figure of the GPU's generation, OS devices are matched by kind and name.
#include "topology/hwloc_discovery.h"

#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string_view>
#include <vector>

#include "core/error.h"
#include "core/file_io.h"
#include "topology/link_bandwidth.h"

#if PB_HAVE_HWLOC
#include <hwloc.h>
#if PB_HAVE_TINYXML2
#include <tinyxml2.h>
#endif
#endif

namespace pipebench {

#if !PB_HAVE_HWLOC

bool built_with_hwloc() { return false; }

Topology discover_with_hwloc(const std::string& flag, const std::string&) {
  throw UsageError(flag + ": this pipebench was built without hwloc (install libhwloc-dev and rebuild)");
}

void export_hwloc_xml(const std::string&) {
  throw UsageError("--export-xml: this pipebench was built without hwloc (install libhwloc-dev and rebuild)");
}

#else

bool built_with_hwloc() { return true; }

namespace {

class HwlocTopology {
 public:
  HwlocTopology() {
    if (hwloc_topology_init(&t_) != 0) throw Error("hwloc_topology_init failed");
    // Without this, hwloc 2.x keeps no PCI or OS device, from sysfs or from XML.
    hwloc_topology_set_io_types_filter(t_, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
  }
  ~HwlocTopology() { hwloc_topology_destroy(t_); }
  HwlocTopology(const HwlocTopology&) = delete;
  HwlocTopology& operator=(const HwlocTopology&) = delete;
  hwloc_topology_t get() const { return t_; }

 private:
  hwloc_topology_t t_ = nullptr;
};

std::string bus_id_of(const hwloc_obj_attr_u::hwloc_pcidev_attr_s& p) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%04x:%02x:%02x.%x", static_cast<unsigned>(p.domain), p.bus, p.dev, p.func);
  return buf;
}

std::string info(hwloc_obj_t o, const char* name) {
  const char* v = o ? hwloc_obj_get_info_by_name(o, name) : nullptr;
  return v ? v : "";
}

bool is_gpu(hwloc_obj_t o) {
  return o->type == HWLOC_OBJ_PCI_DEVICE && o->attr->pcidev.vendor_id == 0x10de &&
         (o->attr->pcidev.class_id >> 8) == 0x03;
}

bool is_nic(hwloc_obj_t o) {
  if (o->type != HWLOC_OBJ_PCI_DEVICE) return false;
  const unsigned cls = o->attr->pcidev.class_id;
  return (cls >> 8) == 0x02 || cls == 0x0c06;  // network controller, or InfiniBand (serial bus class)
}

// Where the root element of an XML text starts, after the prolog (declaration, comments, processing
// instructions, DOCTYPE) however long it is. A valid export may start with a 50 MB comment: more than
// libxml2 accepts in one comment (10 MB without XML_PARSE_HUGE) and more than hwloc's own parser skips
// (it knows only the declaration and DOCTYPE), so hwloc is given the text from the root element on (the
// prolog holds nothing hwloc reads). npos when the text does not start like XML.
std::size_t root_element_offset(std::string_view text) {
  std::size_t i = text.compare(0, 3, "\xEF\xBB\xBF") == 0 ? 3 : 0;  // UTF-8 byte order mark
  for (;;) {
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
    if (i >= text.size() || text[i] != '<') return std::string_view::npos;
    std::string_view closer;
    if (text.compare(i, 4, "<!--") == 0)
      closer = "-->";
    else if (text.compare(i, 2, "<?") == 0)
      closer = "?>";
    else if (text.compare(i, 2, "<!") == 0)
      closer = ">";
    else
      return i;
    const std::size_t end = text.find(closer, i + 2);
    if (end == std::string_view::npos) return std::string_view::npos;
    i = end + closer.size();
  }
}

std::string element_name_at(std::string_view text, std::size_t at) {
  std::size_t e = at + 1;
  while (e < text.size() && !std::isspace(static_cast<unsigned char>(text[e])) && text[e] != '>' && text[e] != '/') ++e;
  return std::string(text.substr(at + 1, e - at - 1));
}

#if PB_HAVE_TINYXML2
// A GPU object hwloc would drop silently (its pci_busid cannot be parsed), or "".
std::string dropped_gpu(const tinyxml2::XMLElement* e) {
  const char* type = e->Attribute("type");
  const char* pci = e->Attribute("pci_type");
  const char* busid = e->Attribute("pci_busid");
  if (!type || std::string_view(type) != "PCIDev" || !pci || std::string_view(pci).rfind("03", 0) != 0 ||
      std::string_view(pci).find("[10de:") == std::string_view::npos || !busid) {
    return "";  // without a pci_busid hwloc keeps it as 0000:00:00.0; check_topology says so
  }
  unsigned domain = 0, bus = 0, dev = 0, fn = 0;
  char extra = 0;
  if (std::sscanf(busid, "%x:%x:%x.%x%c", &domain, &bus, &dev, &fn, &extra) == 4) return "";
  return busid;
}
#endif

// Reads the export with tinyxml2 before hwloc does. hwloc drops a GPU whose pci_busid it cannot parse,
// silently: each such GPU is returned as a problem line. hwloc 2.9 crashes on an object with a cpuset but
// no complete_cpuset (or a nodeset but no complete_nodeset): such a file is refused here. Without
// tinyxml2, nothing is checked.
std::vector<std::string> prescan_hwloc_xml(const std::string& flag, const std::string& path, std::string_view text) {
  std::vector<std::string> out;
#if PB_HAVE_TINYXML2
  const std::size_t root = root_element_offset(text);
  if (root == std::string_view::npos) return out;
  const auto prolog_lines = std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(root), '\n');
  tinyxml2::XMLDocument doc;
  if (doc.Parse(text.data() + root, text.size() - root) != tinyxml2::XML_SUCCESS) return out;  // hwloc says
  std::vector<const tinyxml2::XMLElement*> todo = {doc.RootElement()};
  while (!todo.empty()) {
    const tinyxml2::XMLElement* e = todo.back();
    todo.pop_back();
    if (!e) continue;
    for (auto* c = e->FirstChildElement(); c; c = c->NextSiblingElement()) todo.push_back(c);
    const std::string line = std::to_string(e->GetLineNum() + prolog_lines);
    for (const auto& [set, complete] :
         {std::pair{"cpuset", "complete_cpuset"}, std::pair{"nodeset", "complete_nodeset"}}) {
      if (std::string_view(e->Name()) == "object" && e->Attribute(set) && !e->Attribute(complete)) {
        throw UsageError(flag + " " + path + ": the object at line " + line + " has a " + set + " but no " + complete +
                         " (not an hwloc export, or damaged)");
      }
    }
    const std::string busid = dropped_gpu(e);
    if (!busid.empty()) {
      out.push_back(flag + " " + path + ": the GPU at line " + line + " has a malformed pci_busid \"" +
                    busid.substr(0, 40) + "\"; hwloc drops such a device, so it is missing here");
    }
  }
#else
  (void)flag, (void)path, (void)text;
#endif
  return out;
}

class Builder {
 public:
  explicit Builder(hwloc_topology_t t) : t_(t) {}

  int add(hwloc_obj_t o) {
    auto it = index_.find(o);
    if (it != index_.end()) return it->second;
    const int parent = o->parent ? add(o->parent) : -1;
    TopoNode n;
    n.parent = parent;
    if (o->type == HWLOC_OBJ_PCI_DEVICE) {
      n.kind = NodeKind::kDevice;
      n.bus_id = bus_id_of(o->attr->pcidev);
      n.label = n.bus_id;
      n.link_gbps = o->attr->pcidev.linkspeed;
    } else if (o->type == HWLOC_OBJ_BRIDGE && o->attr->bridge.upstream_type == HWLOC_OBJ_BRIDGE_HOST) {
      n.kind = NodeKind::kHostBridge;
      char buf[64];
      std::snprintf(buf, sizeof buf, "HostBridge %04x:[%02x-%02x]",
                    static_cast<unsigned>(o->attr->bridge.downstream.pci.domain),
                    o->attr->bridge.downstream.pci.secondary_bus, o->attr->bridge.downstream.pci.subordinate_bus);
      n.label = buf;
    } else if (o->type == HWLOC_OBJ_BRIDGE) {
      n.kind = NodeKind::kBridge;
      n.bus_id = bus_id_of(o->attr->bridge.upstream.pci);
      n.label = "Bridge " + n.bus_id;
      // A root port (depth 1) sits inside the root complex; the link below it is the device's own
      // link, which the device reports better (g4dn.metal root ports read 2.0 GB/s above Gen3 x16 T4s).
      n.link_gbps = o->attr->bridge.depth >= 2 ? o->attr->bridge.upstream.pci.linkspeed : 0;
      // Bridge depth counts from the host bridge: root port 1, switch upstream port 2, its downstream
      // ports 3, a second switch's upstream port 4 (topology.md §1.2, checked on DGX-2).
      n.is_switch = o->attr->bridge.depth >= 2 && o->attr->bridge.depth % 2 == 0;
    } else {
      n.kind = NodeKind::kNormal;
      n.label = std::string(hwloc_obj_type_string(o->type)) + ":" + std::to_string(o->logical_index);
      if (o->nodeset) {
        unsigned i;
        hwloc_bitmap_foreach_begin(i, o->nodeset) { n.numa.push_back(static_cast<int>(i)); }
        hwloc_bitmap_foreach_end();
      }
    }
    topo_.nodes.push_back(n);
    const int id = static_cast<int>(topo_.nodes.size()) - 1;
    index_[o] = id;
    return id;
  }

  void locality(hwloc_obj_t o, int* numa, std::string* cpuset) {
    hwloc_obj_t anc = hwloc_get_non_io_ancestor_obj(t_, o);
    *numa = anc && anc->nodeset ? hwloc_bitmap_first(anc->nodeset) : -1;
    if (anc && anc->cpuset && cpuset) {
      char* s = nullptr;
      if (hwloc_bitmap_list_asprintf(&s, anc->cpuset) >= 0 && s) {
        *cpuset = s;
        std::free(s);
      }
    }
  }

  Topology build() {
    hwloc_obj_t root = hwloc_get_root_obj(t_);
    topo_.host = info(root, "HostName");
    hwloc_obj_t pkg = hwloc_get_next_obj_by_type(t_, HWLOC_OBJ_PACKAGE, nullptr);
    topo_.cpu_vendor = info(pkg, "CPUVendor");
    // nvidia-smi numbers GPUs in PCI bus order; hwloc walks the tree, which can differ.
    std::vector<hwloc_obj_t> devices;
    for (hwloc_obj_t o = hwloc_get_next_pcidev(t_, nullptr); o; o = hwloc_get_next_pcidev(t_, o)) devices.push_back(o);
    std::stable_sort(devices.begin(), devices.end(), [](hwloc_obj_t a, hwloc_obj_t b) {
      return bus_id_of(a->attr->pcidev) < bus_id_of(b->attr->pcidev);
    });
    for (hwloc_obj_t o : devices) {
      if (is_gpu(o)) {
        Gpu g;
        g.index = static_cast<int>(topo_.gpus.size());
        g.node = add(o);
        g.bus_id = topo_.nodes[static_cast<std::size_t>(g.node)].bus_id;
        g.model = gpu_model(o);
        locality(o, &g.numa, &g.cpuset);
        gpu_objs_.push_back(o);
        topo_.gpus.push_back(g);
      } else if (is_nic(o)) {
        Nic nic;
        nic.node = add(o);
        nic.bus_id = topo_.nodes[static_cast<std::size_t>(nic.node)].bus_id;
        nic.name = nic_name(o, nic.bus_id);
        nic.rdma = is_rdma(o);
        locality(o, &nic.numa, nullptr);
        topo_.nics.push_back(nic);
      }
    }
    nvlinks();
    return std::move(topo_);
  }

 private:
  static std::string gpu_model(hwloc_obj_t o) {
    for (hwloc_obj_t c = o->io_first_child; c; c = c->next_sibling) {
      const std::string m = info(c, "GPUModel");
      if (!m.empty()) return m;
    }
    const std::string name = info(o, "PCIDevice");
    if (!name.empty()) return name;
    char buf[32];
    std::snprintf(buf, sizeof buf, "NVIDIA [10de:%04x]", o->attr->pcidev.device_id);
    return buf;
  }

  // An RDMA-capable NIC has an OpenFabrics OS device, or is an InfiniBand controller.
  static bool is_rdma(hwloc_obj_t o) {
    if (o->attr->pcidev.class_id == 0x0207 || o->attr->pcidev.class_id == 0x0c06) return true;
    for (hwloc_obj_t c = o->io_first_child; c; c = c->next_sibling) {
      if (c->type == HWLOC_OBJ_OS_DEVICE && c->attr->osdev.type == HWLOC_OBJ_OSDEV_OPENFABRICS) return true;
    }
    return false;
  }

  // nvidia-smi's NIC legend names the RDMA device (mlx5_0) when there is one.
  static std::string nic_name(hwloc_obj_t o, const std::string& bus_id) {
    std::string network;
    for (hwloc_obj_t c = o->io_first_child; c; c = c->next_sibling) {
      if (c->type != HWLOC_OBJ_OS_DEVICE || !c->name) continue;
      if (c->attr->osdev.type == HWLOC_OBJ_OSDEV_OPENFABRICS) return c->name;
      if (c->attr->osdev.type == HWLOC_OBJ_OSDEV_NETWORK && network.empty()) network = c->name;
    }
    return network.empty() ? bus_id : network;
  }

  int gpu_of(hwloc_obj_t o) const {
    for (hwloc_obj_t x = o; x; x = x->parent) {
      auto it = std::find(gpu_objs_.begin(), gpu_objs_.end(), x);
      if (it != gpu_objs_.end()) return static_cast<int>(it - gpu_objs_.begin());
      if (x->type != HWLOC_OBJ_OS_DEVICE) break;
    }
    return -1;
  }

  // NVLinkBandwidth matrix (hwloc's NVML backend; MB/s per pair). Counts = bandwidth / per-link figure
  // of the generation: hwloc <= 2.11 got absolute NVLink speeds wrong, counting links is robust.
  void nvlinks() {
    const std::size_t n = topo_.gpus.size();
    unsigned nr = 1;
    hwloc_distances_s* d = nullptr;
    // No matrix: nvlinks stays empty (unknown), not GPUs^2 zeros.
    if (hwloc_distances_get_by_name(t_, "NVLinkBandwidth", &nr, &d, 0) != 0 || nr == 0) return;
    topo_.nvlinks.assign(n, std::vector<int>(n, 0));
    topo_.nvlink_known = true;
    double per_link_mbps = n ? nvlink_gbps_per_link(topo_.gpus[0].model) * 1000 : 0;
    if (per_link_mbps == 0) {
      for (unsigned i = 0; i < d->nbobjs * d->nbobjs; ++i) {
        if (i % (d->nbobjs + 1) == 0) continue;  // diagonal
        const double v = static_cast<double>(d->values[i]);
        if (v > 0 && (per_link_mbps == 0 || v < per_link_mbps)) per_link_mbps = v;
      }
      topo_.notes.push_back("NVLink generation unknown for " + (n ? topo_.gpus[0].model : std::string("?")) +
                            ": the smallest NVLinkBandwidth value is taken as one link");
    }
    topo_.nvlink_gbps_per_link = per_link_mbps / 1000;
    std::vector<int> fabric(n, 0), to_cpu(n, 0);
    for (unsigned i = 0; i < d->nbobjs; ++i) {
      const int gi = gpu_of(d->objs[i]);
      if (gi < 0) continue;
      for (unsigned j = 0; j < d->nbobjs; ++j) {
        if (i == j || per_link_mbps <= 0) continue;
        const int links =
            static_cast<int>(std::lround(static_cast<double>(d->values[i * d->nbobjs + j]) / per_link_mbps));
        if (links <= 0) continue;
        hwloc_obj_t peer = d->objs[j];
        const int gj = gpu_of(peer);
        if (gj >= 0) {
          topo_.nvlinks[static_cast<std::size_t>(gi)][static_cast<std::size_t>(gj)] = links;
        } else if (peer->type == HWLOC_OBJ_PACKAGE) {
          to_cpu[static_cast<std::size_t>(gi)] += links;
        } else {
          fabric[static_cast<std::size_t>(gi)] += links;  // an NVSwitch port
        }
      }
    }
    hwloc_distances_release(t_, d);
    for (std::size_t i = 0; i < n; ++i) {
      for (std::size_t j = 0; j < n; ++j) {
        if (i != j && fabric[i] && fabric[j])
          topo_.nvlinks[i][j] = std::max(topo_.nvlinks[i][j], std::min(fabric[i], fabric[j]));
      }
      if (to_cpu[i]) {
        topo_.notes.push_back("GPU " + std::to_string(i) + " has " + std::to_string(to_cpu[i]) +
                              " NVLink(s) to its CPU");
      }
    }
  }

  hwloc_topology_t t_;
  Topology topo_;
  std::map<hwloc_obj_t, int> index_;
  std::vector<hwloc_obj_t> gpu_objs_;
};

}  // namespace

Topology discover_with_hwloc(const std::string& flag, const std::string& xml_path) {
  HwlocTopology topo;
  std::string text;  // the XML; hwloc reads it in hwloc_topology_load
  std::vector<std::string> problems;
  if (!xml_path.empty()) {
    struct stat st {};
    if (stat(xml_path.c_str(), &st) != 0) throw UsageError(flag + " " + xml_path + ": no such file");
    text = read_input_file(flag, xml_path);  // a FIFO, directory or device: one line, no blocking read
    if (text.empty()) throw UsageError(flag + " " + xml_path + ": the file is empty");
    const std::size_t root = root_element_offset(text);
    const std::string name = root == std::string::npos ? std::string() : element_name_at(text, root);
    if (name != "topology" && name != "root") {  // hwloc 2.x and 1.x root elements
      throw UsageError(flag + " " + xml_path + ": not an hwloc XML export" +
                       (name == "system" ? " (it looks like NCCL's topology format: use --nccl-xml)" : ""));
    }
    if (text.size() - root >= static_cast<std::size_t>(INT_MAX)) {
      throw UsageError(flag + " " + xml_path + ": larger than hwloc reads (2 GiB)");
    }
    problems = prescan_hwloc_xml(flag, xml_path, text);
    // The size counts the terminating NUL (std::string keeps one after its last character).
    if (hwloc_topology_set_xmlbuffer(topo.get(), text.data() + root, static_cast<int>(text.size() - root + 1)) != 0) {
      throw UsageError(flag + " " + xml_path + ": hwloc could not read it (truncated, or not an hwloc export?)");
    }
  }
  if (hwloc_topology_load(topo.get()) != 0) {
    throw UsageError(xml_path.empty()
                         ? std::string("hwloc could not discover this machine")
                         : flag + " " + xml_path + ": hwloc could not read it (truncated, or not an hwloc export?)");
  }
  if (!xml_path.empty() && !hwloc_get_next_pcidev(topo.get(), nullptr)) {
    throw UsageError(flag + " " + xml_path +
                     ": no PCI devices in this export: it was made without I/O devices (re-export with "
                     "lstopo-no-graphics --whole-io --of xml, or pipebench topo --export-xml)");
  }
  Topology t = Builder(topo.get()).build();
  t.problems = std::move(problems);
  t.source = xml_path.empty() ? "hwloc (live)" : "hwloc XML " + xml_path;
  return t;
}

void export_hwloc_xml(const std::string& path) {
  require_output_path("--export-xml", path);
  HwlocTopology topo;
  if (hwloc_topology_load(topo.get()) != 0) throw Error("hwloc could not discover this machine");
  // hwloc would open the path itself (and write into a FIFO or device): export to memory, write here.
  char* xml = nullptr;
  int length = 0;
  if (hwloc_topology_export_xmlbuffer(topo.get(), &xml, &length, 0) != 0 || !xml) {
    throw Error("hwloc could not export this machine's topology as XML");
  }
  const std::string text(xml, length > 0 ? static_cast<std::size_t>(length - 1) : 0);  // length counts the NUL
  hwloc_free_xmlbuffer(topo.get(), xml);
  write_output_file("--export-xml", path, text);
}

#endif

}  // namespace pipebench
