// SPDX-License-Identifier: Apache-2.0
// The options Megatron-LM's pretrain scripts accept, each with what its argparse action takes, as data
// generated from Megatron-LM's own parser (megatron_argument_table.py writes megatron_arguments.tsv with
// the commit it read; the build makes it C++, embed_argument_table.sh). megatron_argparse.h parses a launch
// line against it as argparse does.
#pragma once

#include <string_view>
#include <vector>

namespace pipebench {

// One argparse action of Megatron-LM's parser.
struct MegatronArgumentSpec {
  // Its option strings, space-separated: "--fp16", or "--x --no-x" for a BooleanOptionalAction.
  std::string_view option_strings;
  // argparse's nargs: "" one value (nargs None), "?", "*", "+", or a count ("0": a flag, "3").
  std::string_view nargs;
  // The value's type: "str", "int", "float" (converted as Python converts), "enum" (a member's name:
  // one of the choices), "flag" (no value), or the name of Megatron's own converter (not checked here).
  std::string_view type;
  // The allowed values, space-separated; "" where any value goes.
  std::string_view choices;
};

// The Megatron-LM commit the table was generated from.
extern const char* const kMegatronArgumentsCommit;

// Every action of Megatron-LM main's parser but --help, sorted by its shortest option string.
[[nodiscard]] std::vector<MegatronArgumentSpec> megatron_argument_table();

}  // namespace pipebench
