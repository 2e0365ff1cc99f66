// SPDX-License-Identifier: Apache-2.0
#include "replay/replay_comms.h"

#include <algorithm>

namespace pipebench {

int ReplayComms::add_group(const std::vector<int>& members) {
  Backend* comm = &world_;
  // bench --plan splits every group but one of all ranks (service/plan_bench.cc add_plan_point).
  if (static_cast<int>(members.size()) != world_.nranks()) {
    auto split = world_.split(members);  // collective: every process takes part
    if (split->nlocal() == 0) return -1;
    owned_.push_back(std::move(split));
    comm = owned_.back().get();
  } else if (!std::binary_search(members.begin(), members.end(), rank())) {
    return -1;
  }
  groups_.push_back(comm);
  return static_cast<int>(groups_.size()) - 1;
}

}  // namespace pipebench
