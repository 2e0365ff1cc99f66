// SPDX-License-Identifier: Apache-2.0
// Comma-separated lists on the command line ("0,3,5", "all_reduce,all_gather"), shared by every command.
#pragma once

#include <string>
#include <vector>

namespace pipebench {

// "a,b,,c" -> {"a", "b", "", "c"}; a trailing comma gives a trailing empty item; "" -> {}.
[[nodiscard]] std::vector<std::string> split_list(const std::string& text);

// Comma-separated rank list "0,3,5" (sorted, unique). Throws UsageError naming flag.
[[nodiscard]] std::vector<int> parse_rank_list(const std::string& flag, const std::string& text);

}  // namespace pipebench
