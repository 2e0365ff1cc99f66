// SPDX-License-Identifier: Apache-2.0
// Host and GPU model per rank.
#include "report/rank_directory.h"

#include <algorithm>

namespace pipebench {

RankDirectory::RankDirectory(const std::vector<SystemDevice>& devices) {
  for (const auto& d : devices) {
    host_[d.rank] = d.host;
    model_[d.rank] = d.model;
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
