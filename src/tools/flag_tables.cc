// SPDX-License-Identifier: Apache-2.0
// `make flag-tables`: writes each subcommand page's flag table (app/flag_table.h) from the command's CLI
// definition, between the page's markers. Usage: flag_tables src/app/SUB.md... (the page's file name is
// the subcommand). A page whose table is current is left untouched; exit 2 with one line for a page
// without markers or a name that is no subcommand.
#include <cstdio>
#include <exception>
#include <filesystem>
#include <string>

#include "app/flag_table.h"
#include "core/file_io.h"

int main(int argc, char** argv) {
  try {
    for (int i = 1; i < argc; ++i) {
      const std::string path = argv[i];
      const std::string page = pipebench::read_input_file("page", path);
      const std::string name = std::filesystem::path(path).stem().string();
      const std::string updated = pipebench::with_flag_table(page, pipebench::command_flag_table(name));
      if (updated == page) continue;
      pipebench::write_output_file("page", path, updated);
      std::printf("%s: flag table written\n", path.c_str());
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "flag_tables: %s\n", e.what());
    return 2;
  }
  return 0;
}
