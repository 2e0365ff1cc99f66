// SPDX-License-Identifier: Apache-2.0
#include "app/help_command.h"

#include "app/help_pages.h"
#include "core/error.h"
#include "core/suggest.h"
#include "core/terminal_text.h"

namespace pipebench {

std::string help_text(const std::vector<std::string>& words) {
  const std::vector<std::string> names = help_page_names();
  if (words.empty() || (words.size() == 1 && (words[0] == "--help" || words[0] == "-h"))) {
    std::string list;
    for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
    return "Usage: pipebench help SUBCOMMAND\n"
           "prints the subcommand's page: what it does, its flags, real examples with their output\n"
           "pages: " +
           list + "\n(pipebench --help lists the subcommands, pipebench SUBCOMMAND --help its flags)\n";
  }
  if (words.size() > 1) {
    throw UsageError("help: one subcommand at a time (got '" + quotable(words[0]) + "' and '" + quotable(words[1]) +
                     "')");
  }
  const std::string_view page = help_page(words[0]);
  if (page.empty()) {
    throw UsageError("help: no subcommand '" + quotable(words[0]) + "'" + did_you_mean(words[0], names) +
                     " (pipebench help lists the pages)");
  }
  return std::string(page);
}

namespace {

// Its words never reach CLI11 (a page name is no flag): the driver hands them over as they are.
class HelpCommand final : public Subcommand {
 public:
  std::string name() const override { return "help"; }
  std::string summary() const override { return "a subcommand's page with examples (pipebench help SUBCOMMAND)"; }
  void add_options(CLI::App& /*sub*/) override {}
  void finish(const CLI::App& /*sub*/, const CommandExtras& /*extras*/) override {}
  bool takes_raw_words() const override { return true; }
  std::string parse_raw_words(const std::vector<std::string>& words) override { return help_text(words); }
  int run(const World* /*world*/) override { return 0; }  // never reached: parse_raw_words always answers
};

}  // namespace

std::unique_ptr<Subcommand> make_help_command() { return std::make_unique<HelpCommand>(); }

}  // namespace pipebench
