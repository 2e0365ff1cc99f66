// SPDX-License-Identifier: Apache-2.0
// The Python list expressions Megatron-LM evaluates for per-layer patterns (--moe-layer-freq
// "([0]*3+[1]*58)": arguments.py moe_freq_type eval()s any string holding "["). Only what such a pattern
// needs is read: integers, list literals of integers, + (concatenation), * (repetition by an integer),
// parentheses and spaces. Nothing is evaluated beyond that.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace pipebench {

// The list `text` evaluates to. Throws UsageError naming `what` (e.g. "--moe-layer-freq") for anything
// else: another token, an integer where a list is needed, a list longer than max_length.
[[nodiscard]] std::vector<long long> eval_list_expression(const std::string& what, const std::string& text,
                                                          std::size_t max_length);

}  // namespace pipebench
