// SPDX-License-Identifier: Apache-2.0
// The subcommand pages (src/app/SUB.md), built into the binary so that `pipebench help SUB` prints the
// page itself, from any installed copy. The definitions are generated at build time from the pages by
// src/app/embed_pages.sh (the Makefile's help_pages.cc rule): the page and the help are one text.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace pipebench {

// The page of subcommand `name` as the file holds it; "" where there is no such page.
[[nodiscard]] std::string_view help_page(std::string_view name);

// The names of every page (the subcommands), in the order of the file names.
[[nodiscard]] std::vector<std::string> help_page_names();

}  // namespace pipebench
