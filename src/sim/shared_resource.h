// SPDX-License-Identifier: Apache-2.0
// Collectives of disjoint groups that run at the same time and share one resource: the host's memory
// bandwidth for ranks on the CPUs of one node, the NICs or links that several data-parallel groups
// cross on GPUs. `bench --plan` times such a set of the plan's collectives once alone and once all at
// once (sim/cost_model.h Sharing); the resource's capacity is what that measurement gives: n groups ran
// `slowdown` times slower than alone, so it carries n / slowdown collectives at full speed.
//
// Processor sharing (Kleinrock, "Queueing Systems" vol. 2, ch. 4): while k collectives of one resource
// run, each progresses at min(1, capacity / k) of its speed alone, and every start or end re-divides
// the resource. A collective alone (or any number up to the capacity) takes exactly its time alone.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "sim/task.h"

namespace pipebench {

class SharedResources {
 public:
  // When a running collective now ends; `version` tells a current completion from one a later start or
  // end replaced (the simulator drops completions whose version is not current).
  struct Completion {
    int collective = 0;
    int version = 0;
    SimTime at = 0;
  };

  // Collective `c` starts at `now` on resource `key` (capacity > 0) and needs `alone_ns` alone. Returns the
  // new completions of every collective running on that resource.
  [[nodiscard]] std::vector<Completion> start(int key, double capacity, int c, SimTime now, SimTime alone_ns);

  // The completion (c, version) arrived at `now`: false when it was replaced (ignore it); else c ends,
  // and `next` gets the new completions of the others on its resource.
  [[nodiscard]] bool finish(int c, int version, SimTime now, std::vector<Completion>& next);

 private:
  struct Running {
    int collective;
    double remaining_ns;  // of work at full speed
    int version;
  };
  struct Resource {
    double capacity = 1;
    double rate = 1;  // of each running collective
    SimTime since = 0;
    std::vector<Running> running;
  };
  std::vector<Completion> redivide(Resource& r, SimTime now);
  std::map<int, Resource> resources_;
  std::map<int, int> key_of_;  // running collective -> its resource
};

}  // namespace pipebench
