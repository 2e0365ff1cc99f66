// SPDX-License-Identifier: Apache-2.0
// End to end: the documentation says what the binary does. README.md and each subcommand page stay
// within 12 KB and README.md links every page; every relative link resolves; `pipebench help SUB`
// prints the page src/app/SUB.md itself, whose flag table lists what `SUB --help` lists; and every
// command of a runnable example runs as written and exits as its page says (tests/README.md).
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "cli/doc_pages.h"
#include "cli/run_pipebench.h"

namespace {

namespace fs = std::filesystem;
using pipebench::docs::Example;
using pipebench::docs::repo_root;
using pipebench::e2e::Result;
using pipebench::e2e::run;
using pipebench::e2e::run_shell;
using pipebench::e2e::slurp;

// The subcommand pages: src/app/*.md but the folder's README.md.
std::vector<fs::path> subcommand_pages() {
  std::vector<fs::path> found;
  for (const auto& entry : fs::directory_iterator(repo_root() / "src" / "app")) {
    const fs::path& p = entry.path();
    if (p.extension() == ".md" && p.filename() != "README.md") found.push_back(fs::canonical(p));
  }
  std::sort(found.begin(), found.end());
  return found;
}

std::string last_lines(const std::string& text, std::size_t chars = 1500) {
  return text.size() <= chars ? text : "..." + text.substr(text.size() - chars);
}

TEST(DocsE2E, ReadmeIsShortAndLinksEveryPage) {
  EXPECT_LE(fs::file_size(repo_root() / "README.md"), 12u * 1024u);
  const auto pages = pipebench::docs::pages();
  std::vector<fs::path> expected = subcommand_pages();
  ASSERT_GE(expected.size(), 10u);
  for (const char* p :
       {"src/README.md", "src/app/README.md", "src/sim/README.md", "src/launch/README.md", "collectives/README.md",
        "topology/README.md", "results/README.md", "tests/README.md", "src/megatron/README.md", "src/replay/README.md",
        "src/trace/README.md", "src/report/README.md", "src/tools/benchmarks.md"}) {
    expected.push_back(fs::canonical(repo_root() / p));
  }
  for (const auto& p : expected) {
    EXPECT_NE(std::find(pages.begin(), pages.end(), p), pages.end()) << p << " is not reachable from README.md";
  }
}

TEST(DocsE2E, EveryRelativeLinkResolves) {
  std::size_t links = 0;
  for (const auto& page : pipebench::docs::pages()) {
    for (const auto& l : pipebench::docs::relative_links(page)) {
      ++links;
      EXPECT_TRUE(fs::exists(page.parent_path() / l.target))
          << page.string() << ":" << l.line << ": the link " << l.target << " leads nowhere";
    }
  }
  EXPECT_GE(links, 20u);  // README's contents alone link every page
}

TEST(DocsE2E, HelpPrintsEachSubcommandsPageAsTheFileHoldsIt) {
  for (const auto& page : subcommand_pages()) {
    const std::string name = page.stem().string();
    const Result r = run("help " + name);
    EXPECT_EQ(r.status, 0) << name << ": " << r.err;
    EXPECT_EQ(r.out, slurp(page.string())) << name;
    EXPECT_EQ(r.err, "") << name;
  }
}

TEST(DocsE2E, HelpOfAnUnknownSubcommandIsOneLineWithTheNearestAndExit2) {
  const Result r = run("help predcit");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;
  EXPECT_NE(r.err.find("'predcit'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("did you mean predict?"), std::string::npos) << r.err;
  const Result two = run("help plan predict");
  EXPECT_EQ(two.status, 2) << two.err;
  const Result none = run("help");
  EXPECT_EQ(none.status, 0) << none.err;
  for (const auto& page : subcommand_pages()) {
    EXPECT_NE(none.out.find(page.stem().string()), std::string::npos) << page << "\n" << none.out;
  }
}

// One entry of `SUB --help` (its Positionals: and Options: sections) or of a page's flag table, in the
// words of --help: the names as CLI11 joins them ("-b,--minbytes"), what follows them ("TEXT=32M",
// "TEXT ... REQUIRED", "" for a flag) and the description on one line.
struct FlagEntry {
  std::string names, opts, description;
  bool operator==(const FlagEntry& o) const {
    return names == o.names && opts == o.opts && description == o.description;
  }
};

std::ostream& operator<<(std::ostream& out, const FlagEntry& e) {
  return out << "{" << e.names << " | " << e.opts << " | " << e.description << "}";
}

std::string trimmed(const std::string& text) {
  const auto first = text.find_first_not_of(' ');
  return first == std::string::npos ? std::string() : text.substr(first, text.find_last_not_of(' ') - first + 1);
}

FlagEntry split_left(const std::string& left, std::string description) {
  const auto space = left.find(' ');
  return {left.substr(0, space), space == std::string::npos ? "" : left.substr(space + 1), trimmed(description)};
}

// CLI11 writes "  NAMES OPTS", padded to column 30, then the description; where NAMES OPTS reaches the
// column the description starts the next line there, as does each further line of a description. So the
// description shares the line where column 30 follows a space and either NAMES OPTS (single-spaced) end
// in a double space or no description line follows.
std::vector<FlagEntry> help_entries(const std::string& help) {
  constexpr std::size_t kColumn = 30;
  const std::string pad(kColumn, ' ');
  std::vector<std::string> lines;
  std::istringstream in(help);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  std::vector<FlagEntry> entries;
  bool in_section = false;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string& line = lines[i];
    if (line == "Positionals:" || line == "Options:") in_section = true;
    if (line.empty()) in_section = false;
    if (!in_section || line.rfind("  ", 0) != 0 || line.rfind(pad, 0) == 0 || line[2] == ' ') continue;
    const bool next_is_description = i + 1 < lines.size() && lines[i + 1].rfind(pad, 0) == 0;
    const bool shares_line =
        line.size() > kColumn && line[kColumn - 1] == ' ' && (line.find("  ", 2) < kColumn || !next_is_description);
    FlagEntry e = shares_line ? split_left(trimmed(line.substr(0, kColumn)), line.substr(kColumn))
                              : split_left(trimmed(line), "");
    for (; i + 1 < lines.size() && lines[i + 1].rfind(pad, 0) == 0; ++i) {
      e.description += (e.description.empty() ? "" : " ") + trimmed(lines[i + 1]);
    }
    if (e.names != "-h,--help") entries.push_back(e);
  }
  return entries;
}

// The rows of the page's generated table, in the same words: "| `-b`, `--minbytes` | `TEXT` | `32M` | ... |".
std::vector<FlagEntry> table_entries(const std::string& page) {
  const std::string begin = "<!-- flag table:";
  const auto at = page.find("\n" + begin);
  if (at == std::string::npos) return {};
  std::vector<FlagEntry> entries;
  std::istringstream in(page.substr(at + 1));
  std::string line;
  std::getline(in, line);  // the marker
  while (std::getline(in, line) && line.rfind("|", 0) == 0) {
    std::vector<std::string> cells;
    std::string cell;
    for (std::size_t i = 1; i < line.size(); ++i) {
      if (line[i] == '\\' && i + 1 < line.size() && line[i + 1] == '|') {
        cell += line[++i];
      } else if (line[i] == '|') {
        cells.push_back(trimmed(cell));
        cell.clear();
      } else if (line[i] != '`' || cells.size() == 3) {  // names, value and default are code spans
        cell += line[i];
      }
    }
    if (cells.size() != 4 || cells[0] == "flag" || cells[0].rfind("---", 0) == 0) continue;
    std::string names = std::regex_replace(cells[0], std::regex(" \\(positional\\)$"), "");
    names = std::regex_replace(names, std::regex(", "), ",");
    std::string value = cells[1], several;
    if (value.size() > 4 && value.substr(value.size() - 4) == " ...") {
      several = " ...";
      value.resize(value.size() - 4);
    }
    const bool required = cells[2] == "required";
    const std::string given_default = required || cells[2].empty() ? "" : "=" + cells[2];
    std::string opts = value + given_default + several + (required ? " REQUIRED" : "");
    entries.push_back({names, trimmed(opts), cells[3]});
  }
  return entries;
}

// `SUB --help` ends pointing to the page, and the page's flag table lists exactly what --help lists:
// the same names, value types, defaults and descriptions, in the same order.
TEST(DocsE2E, EachPagesFlagTableIsWhatItsHelpLists) {
  std::size_t checked = 0;
  for (const auto& page : subcommand_pages()) {
    const std::string name = page.stem().string();
    const Result r = run(name + " --help");
    ASSERT_EQ(r.status, 0) << name << ": " << r.err;
    const std::string footer = "pipebench help " + name + "\n";
    ASSERT_GE(r.out.size(), footer.size()) << name;
    EXPECT_EQ(r.out.substr(r.out.size() - footer.size()), footer) << name << "\n" << last_lines(r.out, 300);
    const std::vector<FlagEntry> listed = help_entries(r.out);
    EXPECT_FALSE(listed.empty()) << name << "\n" << r.out;
    EXPECT_EQ(table_entries(slurp(page.string())), listed) << page.string() << " (make flag-tables)";
    checked += listed.size();
  }
  EXPECT_GE(checked, 100u);  // bench alone has over 40
}

// Each subcommand page is a reference, read in a minute or two, with the README's budget.
TEST(DocsE2E, EachSubcommandPageIsWithinItsSizeBudget) {
  for (const auto& page : subcommand_pages()) {
    EXPECT_LE(fs::file_size(page), 12u * 1024u)
        << page.string() << ": over 12 KB; the model's prose goes to "
        << "src/sim/README.md and the folders' pages, speed history to src/tools/benchmarks.md";
  }
}

// A page's commands run in order in one temporary folder (later ones read what earlier ones wrote), with
// build/bin on PATH and the repository's tests/ and build/bin reachable by the relative paths the pages use.
class PageFolder {
 public:
  PageFolder() {
    std::string templ = "/tmp/pipebench_docs_XXXXXX";
    if (!mkdtemp(templ.data())) throw std::runtime_error("mkdtemp failed");
    dir_ = templ;
    fs::create_directory_symlink(repo_root() / "tests", dir_ / "tests");
    fs::create_directory(dir_ / "build");
    fs::create_directory_symlink(bin_dir(), dir_ / "build" / "bin");
  }
  ~PageFolder() {
    std::error_code ec;
    fs::remove_all(dir_, ec);  // the links are removed, never what they point to
  }
  PageFolder(const PageFolder&) = delete;
  PageFolder& operator=(const PageFolder&) = delete;

  static fs::path bin_dir() { return fs::path(PIPEBENCH_BIN).parent_path(); }

  // Runs the command as written by bash in this folder. Open MPI's oversubscription is left to what the
  // command says (make test's own setting would hide a missing --oversubscribe); a hang ends after 300 s.
  // The pages' examples are those of a machine without a GPU (the ones that need one are marked and left
  // out), so on a GPU node they run with no GPU visible, as they were written.
  Result run(const std::string& command) const {
    {
      std::FILE* f = std::fopen((dir_ / ".command.sh").c_str(), "w");
      if (!f) throw std::runtime_error("cannot write the command file");
      std::fprintf(f, "unset OMPI_MCA_rmaps_base_oversubscribe\nexport CUDA_VISIBLE_DEVICES=\n%s\n", command.c_str());
      std::fclose(f);
    }
    return run_shell("cd '" + dir_.string() + "' && PATH='" + bin_dir().string() +
                     "':\"$PATH\" timeout 300 bash .command.sh");
  }

 private:
  fs::path dir_;
};

TEST(DocsE2E, EveryRunnableExampleRunsAsWrittenAndExitsAsItsPageSays) {
  setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
  setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
  int ran = 0, left_out = 0;
  for (const auto& page : pipebench::docs::pages()) {
    const std::vector<Example> examples = pipebench::docs::examples(page);
    if (examples.empty()) continue;
    PageFolder folder;
    for (const Example& e : examples) {
      const std::string where = page.string() + ":" + std::to_string(e.line);
      if (!e.not_run.empty()) {
        ++left_out;
        std::printf("[ not run  ] %s (%s)\n", where.c_str(), e.not_run.c_str());
        continue;
      }
      const Result r = folder.run(e.command);
      ++ran;
      std::printf("[ ran      ] %s exit %d\n", where.c_str(), r.status);
      if (!e.shown_start.empty()) {
        const std::string output = "\n" + r.out + "\n" + r.err;
        EXPECT_NE(output.find("\n" + e.shown_start), std::string::npos)
            << where << ": no output line starts as the page shows: " << e.shown_start << "\nstdout:\n"
            << last_lines(r.out) << "\nstderr:\n"
            << last_lines(r.err);
      }
      EXPECT_EQ(r.status, e.expected_status) << where << ": $ " << e.command << "\nstdout:\n"
                                             << last_lines(r.out) << "\nstderr:\n"
                                             << last_lines(r.err);
    }
  }
  std::printf("documentation examples: %d ran, %d not run (marked)\n", ran, left_out);
  EXPECT_GT(ran, 0);
  EXPECT_GT(left_out, 0);  // the GPU and long examples are there, and marked
}

}  // namespace
