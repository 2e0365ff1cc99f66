// SPDX-License-Identifier: Apache-2.0
// Edit distance: the Wagner-Fischer dynamic programme (Wagner & Fischer, "The String-to-String Correction
// Problem", JACM 21(1), 1974), one row at a time.
#include "core/suggest.h"

#include <algorithm>
#include <numeric>

namespace pipebench {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  std::iota(row.begin(), row.end(), std::size_t{0});  // from "" to each prefix of b
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];  // the distance of a[0, i-1) to b[0, j-1)
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::string nearest_word(std::string_view word, const std::vector<std::string>& candidates) {
  if (word.empty()) return {};
  // Equally near candidates: the one sharing the longer start with `word` ("--pipeline-parallel-size" is
  // as near to --model-parallel-size as to --pipeline-model-parallel-size; the second is meant).
  auto common_start = [&](const std::string& c) {
    std::size_t n = 0;
    while (n < c.size() && n < word.size() && c[n] == word[n]) ++n;
    return n;
  };
  std::string best;
  std::size_t best_distance = 0, best_start = 0;
  for (const auto& c : candidates) {
    const std::size_t d = edit_distance(word, c);
    const std::size_t allowed = std::max<std::size_t>(2, std::max(word.size(), c.size()) / 3);
    if (d > allowed) continue;
    const std::size_t start = common_start(c);
    if (best.empty() || d < best_distance || (d == best_distance && start > best_start)) {
      best = c;
      best_distance = d;
      best_start = start;
    }
  }
  if (!best.empty()) return best;
  // A shortened or lengthened word ("--link-lat", "benchmark" for bench) when one candidate alone starts
  // with it or is its start.
  std::string prefixed;
  for (const auto& c : candidates) {
    const std::string_view shorter = c.size() < word.size() ? std::string_view(c) : word;
    const std::string_view longer = c.size() < word.size() ? word : std::string_view(c);
    if (shorter.size() < 3 || longer.compare(0, shorter.size(), shorter) != 0) continue;
    if (!prefixed.empty()) return {};
    prefixed = c;
  }
  return prefixed;
}

std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates) {
  const std::string near = nearest_word(word, candidates);
  return near.empty() ? std::string() : " (did you mean " + near + "?)";
}

}  // namespace pipebench
