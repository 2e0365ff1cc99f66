// SPDX-License-Identifier: Apache-2.0
// One clear line for a command line CLI11 refused: the unknown subcommand or flag named, with the nearest
// known one ("did you mean"), instead of CLI11's own text ("The following arguments were not expected:
// 1.17 --link-gbs" for `predict --link-gbs 1.17`).
#pragma once

#include <string>
#include <vector>

namespace CLI {
class App;
class ParseError;
}  // namespace CLI

namespace pipebench {

// The first unknown word of `words` (the arguments after the program, in order): an unknown subcommand
// or an unknown flag of the named subcommand (or of the top level), as a message with "did you mean".
// "" where every word is known.
[[nodiscard]] std::string unknown_word_message(const CLI::App& app, const std::vector<std::string>& words);

// The first flag of `words` given an empty value ("--json ''", "--timeout="), as "bench: --json: the value
// is empty; usage: ...", or "" where there is none. CLI11 reads an empty word as no value: a text flag kept
// its default (--json '' wrote nothing, rc 0) and a number became 0 (replay -T '' turned the timeout off),
// while a script whose variable is unset meant something.
[[nodiscard]] std::string empty_value_message(const CLI::App& app, const std::vector<std::string>& words);

// The message for CLI11's error `e` on `words`: unknown_word_message where there is an unknown word,
// else CLI11's message prefixed by the subcommand with its usage line (e.g. "import: FILE is required;
// usage: pipebench import FORMAT FILE [flags] (pipebench import --help)").
[[nodiscard]] std::string parse_error_message(const CLI::App& app, const std::vector<std::string>& words,
                                              const CLI::ParseError& e);

}  // namespace pipebench
