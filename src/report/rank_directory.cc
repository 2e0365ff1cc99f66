// SPDX-License-Identifier: Apache-2.0
// Host and GPU model per rank.
#include "report/rank_directory.h"

#include <algorithm>

namespace pipebench {

RankDirectory::RankDirectory(const nlohmann::json& devices) {
  if (!devices.is_array()) return;
  for (const auto& d : devices) {
    if (!d.is_object() || !d.contains("rank") || !d["rank"].is_number_integer()) continue;
    const int rank = d["rank"].get<int>();
    if (d.contains("host") && d["host"].is_string()) host_[rank] = d["host"].get<std::string>();
    if (d.contains("model") && d["model"].is_string()) model_[rank] = d["model"].get<std::string>();
  }
}

std::string RankDirectory::joined(const std::vector<int>& ranks, const std::map<int, std::string>& of) const {
  std::vector<std::string> seen;
  for (int r : ranks) {
    const auto it = of.find(r);
    if (it == of.end() || std::find(seen.begin(), seen.end(), it->second) != seen.end()) continue;
    seen.push_back(it->second);
  }
  std::string out;
  for (const auto& s : seen) out += (out.empty() ? "" : ",") + s;
  return out;
}

std::string RankDirectory::hosts(const std::vector<int>& ranks) const { return joined(ranks, host_); }
std::string RankDirectory::models(const std::vector<int>& ranks) const { return joined(ranks, model_); }

}  // namespace pipebench
