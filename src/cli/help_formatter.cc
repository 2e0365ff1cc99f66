// SPDX-License-Identifier: Apache-2.0
#include "cli/help_formatter.h"

#include <sstream>

namespace pipebench {

// The option column as CLI11 2.1.2 writes it (Formatter::make_option_opts): type, "=default", "..." for a
// list, "REQUIRED", then the environment variable and the needs/excludes lists.
std::string HelpFormatter::make_option_opts(const CLI::Option* opt) const {
  std::ostringstream out;
  if (!opt->get_option_text().empty()) {
    out << " " << opt->get_option_text();
  } else {
    if (opt->get_type_size() != 0) {
      if (!opt->get_type_name().empty()) out << " " << get_label(opt->get_type_name());
      if (!opt->get_default_str().empty()) out << "=" << opt->get_default_str();
      if (opt->get_expected_max() == CLI::detail::expected_max_vector_size) {
        out << " ...";
      } else if (opt->get_expected_min() > 1) {
        out << " x " << opt->get_expected();
      }
      if (opt->get_required()) out << " " << get_label("REQUIRED");
    }
    if (!opt->get_envname().empty()) out << " (" << get_label("Env") << ":" << opt->get_envname() << ")";
    if (!opt->get_needs().empty()) {
      out << " " << get_label("Needs") << ":";
      for (const CLI::Option* o : opt->get_needs()) out << " " << o->get_name();
    }
    if (!opt->get_excludes().empty()) {
      out << " " << get_label("Excludes") << ":";
      for (const CLI::Option* o : opt->get_excludes()) out << " " << o->get_name();
    }
  }
  return out.str();
}

void use_help_formatter(CLI::App& app) { app.formatter(std::make_shared<HelpFormatter>()); }

}  // namespace pipebench
