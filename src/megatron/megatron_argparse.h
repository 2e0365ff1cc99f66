// SPDX-License-Identifier: Apache-2.0
// A Megatron-LM argument list parsed as Megatron's own parser parses it: argparse.ArgumentParser(
// allow_abbrev=False) over the table of its actions (megatron_argument_table.h), with the behaviour of
// Python 3.11's argparse.py (parse_args: _parse_optional, consume_optional, _get_values, _check_value).
#pragma once

#include <string>
#include <vector>

#include "megatron/megatron_argument_table.h"

namespace pipebench {

// One action given on the line, as argparse keeps it: its last occurrence.
struct MegatronArgument {
  std::string option;               // the option string as written ("--no-x" for a negated flag)
  std::vector<std::string> values;  // its values as written (none for a flag; "--x=v" gives v)
  MegatronArgumentSpec spec;
};

// Parses `args` (the words after pretrain_gpt.py) against `table`: exact option names only (no
// abbreviations), "--x=value", nargs None/"?"/"*"/"+"/N, "--" ending the options (the words after it are
// positional, and Megatron has no positionals), "-1" and "-.5" as values (a word starting with "-" is an
// option otherwise, like argparse's), int/float/choices checked as argparse converts them. A repeated
// action keeps its last occurrence, as argparse's store does. Returns the actions given, in the order of
// those occurrences. Throws UsageError with argparse's own words where Megatron-LM's parser refuses the
// line ("argument --x: expected one argument", "unrecognized arguments: ..."), followed by the nearest
// known name or choice ("did you mean").
[[nodiscard]] std::vector<MegatronArgument> parse_megatron_argv(const std::vector<std::string>& args,
                                                                const std::vector<MegatronArgumentSpec>& table);

}  // namespace pipebench
