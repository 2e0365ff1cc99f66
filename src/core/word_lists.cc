// SPDX-License-Identifier: Apache-2.0
#include "core/word_lists.h"

#include <algorithm>
#include <sstream>

#include "core/error.h"
#include "core/terminal_text.h"

namespace pipebench {

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) out.push_back(item);
  if (!text.empty() && text.back() == ',') out.emplace_back();
  return out;
}

std::vector<int> parse_rank_list(const std::string& flag, const std::string& text) {
  if (text.empty()) throw UsageError(flag + ": empty rank list (e.g. 0,3)");
  std::vector<int> out;
  for (const auto& item : split_list(text)) {
    const bool digits = !item.empty() && item.size() < 10 &&
                        std::all_of(item.begin(), item.end(), [](char ch) { return ch >= '0' && ch <= '9'; });
    if (!digits) throw UsageError(flag + ": '" + quotable(item) + "' is not a rank number (e.g. 0,3)");
    out.push_back(std::stoi(item));
  }
  std::sort(out.begin(), out.end());
  if (std::adjacent_find(out.begin(), out.end()) != out.end()) throw UsageError(flag + ": a rank is listed twice");
  return out;
}

}  // namespace pipebench
