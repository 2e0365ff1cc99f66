// SPDX-License-Identifier: Apache-2.0
// A self-declared minimum of the NVML API (nvml.h, API 13), resolved with dlsym.
#include "topology/nvml_probe.h"

#include <dlfcn.h>

#include <algorithm>
#include <vector>

#include "topology/link_bandwidth.h"

namespace pipebench {
namespace {

using nvmlReturn_t = int;
using nvmlDevice_t = struct nvmlDevice_st*;
constexpr nvmlReturn_t kNvmlSuccess = 0;
constexpr int kNvmlNvLinkDeviceTypeGpu = 0;
constexpr unsigned kMaxLinks = 36;  // NVML_NVLINK_MAX_LINKS in API 13; stop at the first error

struct NvmlPciInfo {  // nvmlPciInfo_t
  char busIdLegacy[16];
  unsigned domain, bus, device, pciDeviceId, pciSubSystemId;
  char busId[32];
};

class Nvml {
 public:
  Nvml() {
    lib_ = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib_) return;
    sym(init_, "nvmlInit_v2");
    sym(shutdown_, "nvmlShutdown");
    sym(count_, "nvmlDeviceGetCount_v2");
    sym(by_index_, "nvmlDeviceGetHandleByIndex_v2");
    sym(pci_, "nvmlDeviceGetPciInfo_v3");
    sym(curr_gen_, "nvmlDeviceGetCurrPcieLinkGeneration");
    sym(curr_width_, "nvmlDeviceGetCurrPcieLinkWidth");
    sym(max_gen_, "nvmlDeviceGetMaxPcieLinkGeneration");
    sym(max_width_, "nvmlDeviceGetMaxPcieLinkWidth");
    sym(link_state_, "nvmlDeviceGetNvLinkState");
    sym(link_remote_, "nvmlDeviceGetNvLinkRemotePciInfo_v2");
    sym(link_version_, "nvmlDeviceGetNvLinkVersion");
    sym(link_type_, "nvmlDeviceGetNvLinkRemoteDeviceType");
    ok_ = init_ && shutdown_ && count_ && by_index_ && pci_ && init_() == kNvmlSuccess;
  }
  ~Nvml() {
    if (ok_) shutdown_();
    if (lib_) dlclose(lib_);
  }
  Nvml(const Nvml&) = delete;
  Nvml& operator=(const Nvml&) = delete;
  bool loaded() const { return lib_ != nullptr; }
  bool ok() const { return ok_; }

  nvmlReturn_t (*init_)() = nullptr;
  nvmlReturn_t (*shutdown_)() = nullptr;
  nvmlReturn_t (*count_)(unsigned*) = nullptr;
  nvmlReturn_t (*by_index_)(unsigned, nvmlDevice_t*) = nullptr;
  nvmlReturn_t (*pci_)(nvmlDevice_t, NvmlPciInfo*) = nullptr;
  nvmlReturn_t (*curr_gen_)(nvmlDevice_t, unsigned*) = nullptr;
  nvmlReturn_t (*curr_width_)(nvmlDevice_t, unsigned*) = nullptr;
  nvmlReturn_t (*max_gen_)(nvmlDevice_t, unsigned*) = nullptr;
  nvmlReturn_t (*max_width_)(nvmlDevice_t, unsigned*) = nullptr;
  nvmlReturn_t (*link_state_)(nvmlDevice_t, unsigned, int*) = nullptr;
  nvmlReturn_t (*link_remote_)(nvmlDevice_t, unsigned, NvmlPciInfo*) = nullptr;
  nvmlReturn_t (*link_version_)(nvmlDevice_t, unsigned, unsigned*) = nullptr;
  nvmlReturn_t (*link_type_)(nvmlDevice_t, unsigned, int*) = nullptr;

 private:
  template <typename F>
  void sym(F& f, const char* name) {
    f = reinterpret_cast<F>(dlsym(lib_, name));
  }
  void* lib_ = nullptr;
  bool ok_ = false;
};

int get(nvmlReturn_t (*f)(nvmlDevice_t, unsigned*), nvmlDevice_t d) {
  unsigned v = 0;
  return f && f(d, &v) == kNvmlSuccess ? static_cast<int>(v) : 0;
}

}  // namespace

bool enrich_with_nvml(Topology& t, std::string* why) {
  Nvml nvml;
  if (!nvml.loaded()) {
    if (why) *why = "libnvidia-ml.so.1 not found";
    return false;
  }
  if (!nvml.ok()) {
    if (why) *why = "nvmlInit failed";
    return false;
  }
  unsigned count = 0;
  nvml.count_(&count);
  const std::size_t n = t.gpus.size();
  if (t.nvlinks.size() != n) t.nvlinks.assign(n, std::vector<int>(n, 0));
  std::vector<int> fabric(n, 0);
  bool any_link_api = false;
  for (unsigned i = 0; i < count; ++i) {
    nvmlDevice_t dev = nullptr;
    NvmlPciInfo pci{};
    if (nvml.by_index_(i, &dev) != kNvmlSuccess || nvml.pci_(dev, &pci) != kNvmlSuccess) continue;
    const std::string bus = normalize_bus_id(pci.busId);
    auto g = std::find_if(t.gpus.begin(), t.gpus.end(), [&](const Gpu& x) { return x.bus_id == bus; });
    if (g == t.gpus.end()) continue;
    TopoNode& node = t.nodes[static_cast<std::size_t>(g->node)];
    node.link_gen = get(nvml.curr_gen_, dev);
    node.link_width = get(nvml.curr_width_, dev);
    node.link_gen_max = get(nvml.max_gen_, dev);
    node.link_width_max = get(nvml.max_width_, dev);
    if (node.link_gen && node.link_width) node.link_gbps = pcie_gbps(node.link_gen, node.link_width);
    if (!nvml.link_state_ || !nvml.link_remote_) continue;
    any_link_api = true;
    g->nvlinks_up = g->nvlinks_down = 0;
    for (unsigned link = 0; link < kMaxLinks; ++link) {
      int active = 0;
      if (nvml.link_state_(dev, link, &active) != kNvmlSuccess) break;
      ++(active ? g->nvlinks_up : g->nvlinks_down);
      if (!active) continue;
      unsigned version = 0;
      if (nvml.link_version_ && nvml.link_version_(dev, link, &version) == kNvmlSuccess) {
        t.nvlink_gbps_per_link = nvlink_gbps_for_nvml_version(static_cast<int>(version));
      }
      NvmlPciInfo remote{};
      int type = -1;
      if (nvml.link_type_) nvml.link_type_(dev, link, &type);
      const bool got_remote = nvml.link_remote_(dev, link, &remote) == kNvmlSuccess;
      const std::string peer = got_remote ? normalize_bus_id(remote.busId) : "";
      auto p = std::find_if(t.gpus.begin(), t.gpus.end(), [&](const Gpu& x) { return x.bus_id == peer; });
      if (type == kNvmlNvLinkDeviceTypeGpu && p != t.gpus.end()) {
        ++t.nvlinks[static_cast<std::size_t>(g->index)][static_cast<std::size_t>(p->index)];
      } else {
        ++fabric[static_cast<std::size_t>(g->index)];  // NVSwitch, or a switch a VM hides (FFFFFFFF:FF:FF.0)
      }
    }
  }
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < n; ++j) {
      if (i != j && fabric[i] && fabric[j]) t.nvlinks[i][j] = std::max(t.nvlinks[i][j], std::min(fabric[i], fabric[j]));
    }
  }
  t.nvlink_known = t.nvlink_known || any_link_api;
  return true;
}

}  // namespace pipebench
