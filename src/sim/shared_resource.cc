// SPDX-License-Identifier: Apache-2.0
#include "sim/shared_resource.h"

#include <algorithm>
#include <cmath>

namespace pipebench {

std::vector<SharedResources::Completion> SharedResources::redivide(Resource& r, SimTime now) {
  const double elapsed = static_cast<double>(now - r.since);
  for (auto& x : r.running) x.remaining_ns = std::max(0.0, x.remaining_ns - elapsed * r.rate);
  r.since = now;
  const double k = static_cast<double>(r.running.size());
  r.rate = k > 0 ? std::min(1.0, r.capacity / k) : 1.0;
  std::vector<Completion> out;
  for (auto& x : r.running) {
    ++x.version;
    out.push_back({x.collective, x.version, now + static_cast<SimTime>(std::ceil(x.remaining_ns / r.rate))});
  }
  return out;
}

std::vector<SharedResources::Completion> SharedResources::start(int key, double capacity, int c, SimTime now,
                                                                SimTime alone_ns) {
  Resource& r = resources_[key];
  if (r.running.empty()) r.since = now;
  r.capacity = capacity;
  redivide(r, now);  // the others' progress up to now, at the old rate
  r.running.push_back({c, static_cast<double>(alone_ns), 0});
  key_of_[c] = key;
  return redivide(r, now);
}

bool SharedResources::finish(int c, int version, SimTime now, std::vector<Completion>& next) {
  const auto k = key_of_.find(c);
  if (k == key_of_.end()) return false;
  Resource& r = resources_[k->second];
  const auto it = std::find_if(r.running.begin(), r.running.end(), [c](const Running& x) { return x.collective == c; });
  if (it == r.running.end() || it->version != version) return false;
  redivide(r, now);  // values only: `it` still points at c
  r.running.erase(it);
  key_of_.erase(k);
  next = redivide(r, now);
  return true;
}

}  // namespace pipebench
