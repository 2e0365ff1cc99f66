// SPDX-License-Identifier: Apache-2.0
// The options Megatron-LM's pretrain scripts accept, as data generated from Megatron-LM's own parser
// (megatron_argument_names.py writes megatron_argument_names.cc; the commit it read is recorded).
// plan uses it to tell an argument that has no effect on communication from one Megatron would reject.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace pipebench {

// The Megatron-LM commit the names were generated from.
extern const char* const kMegatronArgumentsCommit;

// Every "--name" Megatron-LM main accepts, sorted.
[[nodiscard]] std::vector<std::string_view> megatron_argument_names();

}  // namespace pipebench
