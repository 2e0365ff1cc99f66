// SPDX-License-Identifier: Apache-2.0
// ReplayComms: the communicators a replay issues its calls on, made as `bench --plan` makes its own: the
// world's backend (make_backend) for P2P and for a group of every rank, Backend::split of it for every
// other group. So each collective runs on the kind of communicator bench timed it on.
#pragma once

#include <memory>
#include <vector>

#include "backend/backend.h"

namespace pipebench {

class ReplayComms {
 public:
  // REQUIRES: world spans every process of the job, one rank per process, and outlives this.
  explicit ReplayComms(Backend& world) : world_(world) {}

  [[nodiscard]] int rank() const { return world_.rank_of(0); }  // this process's rank in the world
  [[nodiscard]] Backend& world() const { return world_; }
  // Collective over every process, each passing the same members (sorted, unique global ranks): the
  // group's communicator. Returns its id, or -1 where this process holds no member.
  [[nodiscard]] int add_group(const std::vector<int>& members);
  [[nodiscard]] Backend& group(int id) const { return *groups_.at(static_cast<std::size_t>(id)); }

 private:
  Backend& world_;
  std::vector<Backend*> groups_;                 // by id: world_ or one of owned_
  std::vector<std::unique_ptr<Backend>> owned_;  // the splits
};

}  // namespace pipebench
