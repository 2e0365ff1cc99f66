// SPDX-License-Identifier: Apache-2.0
// The check every rooted op (broadcast, reduce, gather, scatter) makes of -r/--root.
#pragma once

#include <string>
#include <string_view>

#include "collectives/op.h"
#include "core/error.h"

namespace pipebench {

inline void validate_root(std::string_view op, int nranks, const OpParams& p) {
  if (p.root < 0 || p.root >= nranks) {
    throw UsageError("-r/--root: root " + std::to_string(p.root) + " of " + std::string(op) + " is out of range for " +
                     std::to_string(nranks) + " ranks");
  }
}

}  // namespace pipebench
