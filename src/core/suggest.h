// SPDX-License-Identifier: Apache-2.0
// "Did you mean": the known word nearest to a mistyped one, by edit distance, for the messages that
// refuse an unknown subcommand, flag or Megatron argument.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace pipebench {

// Levenshtein distance (insertions, deletions and substitutions of one character each cost 1).
[[nodiscard]] std::size_t edit_distance(std::string_view a, std::string_view b);

// The candidate nearest to `word` when it is near enough to be a typo of it: at most a third of the
// longer word's characters differ (at least two may), or else exactly one candidate starts with `word`
// or is the start of it (three characters at least). "" where none is; of equally near ones, the one
// sharing the longest start with `word`, then the first.
[[nodiscard]] std::string nearest_word(std::string_view word, const std::vector<std::string>& candidates);

// " (did you mean X?)" for nearest_word's answer; "" where there is none.
[[nodiscard]] std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace pipebench
