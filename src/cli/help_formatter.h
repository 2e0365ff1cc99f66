// SPDX-License-Identifier: Apache-2.0
// --help's option column in one form whatever CLI11 release builds pipebench: "TYPE=DEFAULT". CLI11 2.1
// writes a default so, later releases as "TYPE [DEFAULT]"; the pages' flag tables, the nccl-tests binaries'
// help (app/nccl_tests_mode.h) and the tests that read --help rely on one form.
#pragma once

#include <CLI/CLI.hpp>
#include <memory>
#include <string>

namespace pipebench {

class HelpFormatter final : public CLI::Formatter {
 public:
  [[nodiscard]] std::string make_option_opts(const CLI::Option* opt) const override;
};

// Gives `app` (and the subcommands added to it afterwards) the HelpFormatter.
void use_help_formatter(CLI::App& app);

}  // namespace pipebench
