// SPDX-License-Identifier: Apache-2.0
// End to end: the documentation says what the binary does. README.md stays short and links every page;
// every relative link resolves; `pipebench help SUB` prints the page src/app/SUB.md itself; and every
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
  for (const char* p : {"src/README.md", "src/app/README.md", "src/sim/README.md", "src/launch/README.md",
                        "collectives/README.md", "topology/README.md", "results/README.md", "tests/README.md"}) {
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

// The flags `SUB --help` lists ("  -b,--minbytes TEXT ...", "  --quiet ..."), each as its names.
std::vector<std::vector<std::string>> listed_flags(const std::string& help) {
  static const std::regex flag(R"(^  +((-[A-Za-z0-9]),)?(--?[A-Za-z0-9][A-Za-z0-9_-]*))");
  std::vector<std::vector<std::string>> flags;
  std::istringstream in(help);
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (!std::regex_search(line, m, flag) || m[3].str() == "--help") continue;
    flags.push_back(m[2].matched ? std::vector<std::string>{m[2].str(), m[3].str()}
                                 : std::vector<std::string>{m[3].str()});
  }
  return flags;
}

// A flag is on the page when one of its names stands there as a word of its own.
bool names_flag(const std::string& page, const std::vector<std::string>& names) {
  for (const auto& name : names) {
    const std::regex word("(^|[^A-Za-z0-9_-])" + name + "([^A-Za-z0-9_-]|$)");
    if (std::regex_search(page, word)) return true;
  }
  return false;
}

// `SUB --help` ends pointing to the page, and every flag it lists is on that page.
TEST(DocsE2E, EveryFlagOfASubcommandIsOnItsPageAndItsHelpPointsThere) {
  std::size_t checked = 0;
  for (const auto& page : subcommand_pages()) {
    const std::string name = page.stem().string();
    const Result r = run(name + " --help");
    ASSERT_EQ(r.status, 0) << name << ": " << r.err;
    const std::string footer = "pipebench help " + name + "\n";
    ASSERT_GE(r.out.size(), footer.size()) << name;
    EXPECT_EQ(r.out.substr(r.out.size() - footer.size()), footer) << name << "\n" << last_lines(r.out, 300);
    const std::string text = slurp(page.string());
    for (const auto& names : listed_flags(r.out)) {
      ++checked;
      EXPECT_TRUE(names_flag(text, names)) << names.back() << " of " << name << " is not on " << page.string();
    }
  }
  EXPECT_GE(checked, 100u);  // bench alone has over 40
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
