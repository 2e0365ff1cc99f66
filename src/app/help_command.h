// SPDX-License-Identifier: Apache-2.0
// `pipebench help [SUBCOMMAND]`: a subcommand's page (src/app/SUB.md, built into the binary).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/command.h"

namespace pipebench {

// What `pipebench help WORDS...` prints: with no word, how to ask for a page and the pages there are;
// with one, that subcommand's page. Throws UsageError for an unknown name (with the nearest one) or
// more than one word.
[[nodiscard]] std::string help_text(const std::vector<std::string>& words);

[[nodiscard]] std::unique_ptr<Subcommand> make_help_command();

}  // namespace pipebench
