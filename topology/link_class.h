// SPDX-License-Identifier: Apache-2.0
// The link class of a group of ranks: the worst pair of the group (nvidia-smi's names). One rule for
// everything that needs it: stamping result records, and --class-fallback / --link CLASS=... in predict.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "topology/topology.h"

namespace pipebench {

struct LinkClass {
  PathClass cls = PathClass::kSelf;
  int nvlinks = 0;                          // kNvLink: how many links
  bool across_hosts = false;                // the ranks sit on different hosts: "NET", worse than any class of one host
  [[nodiscard]] std::string label() const;  // "X", "NV4", "PIX", ..., "SYS", "NET"
  bool operator==(const LinkClass& o) const {
    return cls == o.cls && nvlinks == o.nvlinks && across_hosts == o.across_hosts;
  }
};

// Worse: across hosts, then the higher PathClass; of two NVLink pairs, the one with fewer links.
[[nodiscard]] bool worse_than(const LinkClass& a, const LinkClass& b);

// The class named by a label of label(); nullopt for anything else ("NV" needs a link count).
[[nodiscard]] std::optional<LinkClass> parse_link_class(std::string_view label);

// The class of a pair of global ranks (a == b: the rank itself, kSelf when it is placed on a GPU);
// nullopt when unknown.
using PairClassFn = std::function<std::optional<LinkClass>(int a, int b)>;

// The worst pair of `ranks`; nullopt when any pair (or, for one rank, the rank) is unknown or the group
// is empty.
[[nodiscard]] std::optional<LinkClass> worst_link_class(const std::vector<int>& ranks, const PairClassFn& pair_class);

}  // namespace pipebench
