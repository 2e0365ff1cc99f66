// SPDX-License-Identifier: Apache-2.0
// RankDirectory: the host and GPU model of every rank (the results file's system.devices), so that each
// record of a line-per-record output (--jsonl, --prometheus) can say where it ran.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "io/results_io.h"

namespace pipebench {

class RankDirectory {
 public:
  explicit RankDirectory(const std::vector<SystemDevice>& devices);
  // The distinct hosts / GPU models of these ranks in rank order, joined by ","; "" when none is known.
  [[nodiscard]] std::string hosts(const std::vector<int>& ranks) const;
  [[nodiscard]] std::string models(const std::vector<int>& ranks) const;

 private:
  [[nodiscard]] std::string joined(const std::vector<int>& ranks, const std::map<int, std::string>& of) const;
  std::map<int, std::string> host_, model_;
};

}  // namespace pipebench
