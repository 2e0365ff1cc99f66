// SPDX-License-Identifier: Apache-2.0
// System description gathered from every rank.
#include "report/system_info.h"

#include <unistd.h>

#include <set>

namespace pipebench {

nlohmann::json collect_system(const World& world, const Backend& backend) {
  nlohmann::json mine = nlohmann::json::array();
  for (const auto& d : backend.devices()) {
    mine.push_back({{"rank", d.rank},
                    {"host", world.host()},
                    {"pid", static_cast<long>(getpid())},
                    {"device", d.device},
                    {"bus_id", d.bus_id},
                    {"model", d.model}});
  }
  nlohmann::json devices = nlohmann::json::array();
  std::set<std::string> hosts, models;
  for (const auto& text : world.all_gather(mine.dump())) {
    for (auto& d : nlohmann::json::parse(text)) {
      hosts.insert(d["host"].get<std::string>());
      models.insert(d["model"].get<std::string>());
      devices.push_back(d);
    }
  }
  for (const auto& h : world.all_gather(world.host())) hosts.insert(h);
  return {{"hosts", hosts},     {"processes", world.size()},      {"gpu_models", models},
          {"devices", devices}, {"versions", backend.versions()}, {"environment", world.launch_environment()}};
}

}  // namespace pipebench
