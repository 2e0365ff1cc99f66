// SPDX-License-Identifier: Apache-2.0
// Results JSON.
#include "io/results_io.h"

#include <map>
#include <string>
#include <vector>

#include "sim/cost_model.h"

namespace pipebench {

PathModel paths_from_results(const nlohmann::json& results) {
  PathModel pm;
  const auto& system = results.value("system", nlohmann::json::object());
  const auto& topo = system.value("topology", nlohmann::json::object());
  if (!topo.contains("pairs") || !system.contains("devices")) return pm;
  const std::map<int, int> gpu_of_rank = rank_to_gpu(results);
  std::map<std::pair<int, int>, std::vector<std::string>> by_gpu;
  for (const auto& p : topo["pairs"]) {
    if (p.value("kind", "") != "gpu-gpu" || !p.contains("path")) continue;
    by_gpu[{p["a"].get<int>(), p["b"].get<int>()}] = p["path"].get<std::vector<std::string>>();
  }
  std::map<std::string, int> ids;
  for (const auto& [ra, ga] : gpu_of_rank) {
    for (const auto& [rb, gb] : gpu_of_rank) {
      const auto it = by_gpu.find({ga, gb});
      if (ra == rb || it == by_gpu.end()) continue;
      std::vector<int> links;
      for (const auto& name : it->second)
        links.push_back(ids.emplace(name, static_cast<int>(ids.size())).first->second);
      pm.links[{ra, rb}] = links;
    }
  }
  pm.link_count = ids.size();
  return pm;
}

}  // namespace pipebench
