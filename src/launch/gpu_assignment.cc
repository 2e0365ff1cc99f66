// SPDX-License-Identifier: Apache-2.0
// GPU assignment by node-local rank; the --gpus list.
#include "launch/gpu_assignment.h"

#include <algorithm>
#include <cctype>
#include <regex>
#include <sstream>

#include "core/error.h"
#include "core/text.h"

namespace pipebench {

int pick_device(int local, int gpus, int visible, int local_rank, int local_size, const std::string& host) {
  if (gpus > visible) {
    throw LocalUsageError("-g " + std::to_string(gpus) + ": only " + std::to_string(visible) + " GPU" +
                          (visible == 1 ? " is" : "s are") + " visible on host " + host);
  }
  if (visible >= local_size * gpus) return local_rank * gpus + local;
  if (visible == gpus) return local;  // each process sees only its own GPUs
  throw LocalUsageError("-g " + std::to_string(gpus) + ": " + std::to_string(local_size) + " processes on host " +
                        host + " need " + std::to_string(local_size * gpus) + " GPUs, but " + std::to_string(visible) +
                        " are visible to each (give every process all GPUs, or exactly -g of its own)");
}

namespace {

// The forms CUDA_VISIBLE_DEVICES and nvidia-smi -i accept (CUDA C Programming Guide, "CUDA Environment
// Variables"; nvidia-smi(1)), the UUID whole and the bus id with or without its PCI domain.
const std::regex& index_form() {
  static const std::regex re("[0-9]{1,4}");
  return re;
}
const std::regex& uuid_form() {
  static const std::regex re("GPU-[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}");
  return re;
}
const std::regex& bus_id_form() {
  static const std::regex re("(?:([0-9a-fA-F]{4,8}):)?([0-9a-fA-F]{2}:[0-9a-fA-F]{2}\\.[0-7])");
  return re;
}

// "dddd:bb:dd.f" in lower case: nvidia-smi writes 8 domain digits, CUDA 4; a domain above 0xffff does
// not exist on the PCI buses CUDA reports. "" when not a bus id.
std::string canonical_bus_id(const std::string& text) {
  std::smatch m;
  if (!std::regex_match(text, m, bus_id_form())) return {};
  std::string domain = m[1].matched ? m[1].str() : "0000";
  domain = domain.substr(domain.size() - 4);
  return lower(domain + ":" + m[2].str());
}

[[noreturn]] void bad_entry(const std::string& entry, const std::string& why) {
  throw UsageError("--gpus '" + entry + "': " + why);
}

// The device `entry` names, or -1 when none does.
int find_device(const std::string& entry, const std::vector<GpuIdentity>& devices) {
  const bool index = std::regex_match(entry, index_form());
  const std::string bus = canonical_bus_id(entry);
  for (std::size_t i = 0; i < devices.size(); ++i) {
    if (index && std::stoi(entry) == static_cast<int>(i)) return static_cast<int>(i);
    if (!index && bus.empty() && lower(devices[i].uuid) == lower(entry)) return static_cast<int>(i);
    if (!bus.empty() && canonical_bus_id(devices[i].bus_id) == bus) return static_cast<int>(i);
  }
  return -1;
}

}  // namespace

std::vector<std::string> parse_gpu_list(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  std::vector<std::string> seen;
  for (std::string entry; std::getline(in, entry, ',');) {
    if (entry.empty()) bad_entry(text, "an empty entry (give indices, UUIDs or bus ids separated by commas)");
    const bool known = std::regex_match(entry, index_form()) || std::regex_match(entry, uuid_form()) ||
                       !canonical_bus_id(entry).empty();
    if (!known) {
      bad_entry(entry,
                "not a CUDA index (0), a UUID (GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx, nvidia-smi -L) or a "
                "PCI bus id (0000:17:00.0)");
    }
    const std::string key = canonical_bus_id(entry).empty() ? lower(entry) : canonical_bus_id(entry);
    if (std::find(seen.begin(), seen.end(), key) != seen.end()) bad_entry(entry, "given twice");
    seen.push_back(key);
    out.push_back(entry);
  }
  if (out.empty() || text.back() == ',')
    bad_entry(text, "an empty entry (give indices, UUIDs or bus ids separated by commas)");
  return out;
}

std::vector<int> resolve_gpu_list(const std::vector<std::string>& entries, const std::vector<GpuIdentity>& devices,
                                  const std::string& host) {
  std::vector<int> out;
  for (const auto& entry : entries) {
    const int d = find_device(entry, devices);
    if (d < 0) {
      throw LocalUsageError("--gpus '" + entry + "': no such GPU among the " + std::to_string(devices.size()) +
                            " visible on host " + host);
    }
    if (std::find(out.begin(), out.end(), d) != out.end()) {
      throw LocalUsageError("--gpus '" + entry + "': names GPU " + std::to_string(d) + " of host " + host +
                            " a second time");
    }
    out.push_back(d);
  }
  return out;
}

int pick_listed_device(int local, int gpus, const std::vector<int>& listed, int visible, int local_rank, int local_size,
                       const std::string& host) {
  if (listed.empty()) return pick_device(local, gpus, visible, local_rank, local_size, host);
  const int n = static_cast<int>(listed.size());
  if (n >= local_size * gpus) return listed[static_cast<std::size_t>(local_rank * gpus + local)];
  if (n == gpus) return listed[static_cast<std::size_t>(local)];
  throw LocalUsageError("--gpus: lists " + std::to_string(n) + " GPU" + (n == 1 ? "" : "s") + " for the " +
                        std::to_string(local_size) + " process" + (local_size == 1 ? "" : "es") + " on host " + host +
                        " driving -g " + std::to_string(gpus) + " each (list " + std::to_string(local_size * gpus) +
                        ", or exactly " + std::to_string(gpus) + " for every process)");
}

}  // namespace pipebench
