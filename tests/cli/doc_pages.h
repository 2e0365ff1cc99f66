// SPDX-License-Identifier: Apache-2.0
// The documentation as data for the tests that hold it to what it says: the pages (README.md and every
// Markdown page reachable from it by relative links), their links, and the commands of their runnable
// examples (```console blocks, `$ ` lines; the convention is in tests/README.md).
#pragma once

#include <algorithm>
#include <deque>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace pipebench::docs {

namespace fs = std::filesystem;

// The repository's root: TEST_DATA_DIR is ROOT/tests/fixtures.
inline fs::path repo_root() { return fs::path(TEST_DATA_DIR).parent_path().parent_path(); }

inline std::vector<std::string> read_lines(const fs::path& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

inline bool is_fence(const std::string& line) { return line.rfind("```", 0) == 0; }

struct Link {
  fs::path page;       // the page it is on
  int line = 0;        // 1-based
  std::string target;  // as written, without its #anchor
};

// The relative links of a page outside code blocks and inline code (web links and #anchors are left out).
inline std::vector<Link> relative_links(const fs::path& page) {
  static const std::regex link(R"(\[[^\]]*\]\(([^)\s]+)\))");
  std::vector<Link> links;
  const auto lines = read_lines(page);
  bool in_block = false;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (is_fence(lines[i])) in_block = !in_block;
    if (in_block || is_fence(lines[i])) continue;
    std::string text;  // the line without its inline code spans
    bool in_code = false;
    for (char c : lines[i]) {
      if (c == '`') in_code = !in_code;
      if (!in_code && c != '`') text += c;
    }
    for (std::sregex_iterator it(text.begin(), text.end(), link), end; it != end; ++it) {
      std::string target = (*it)[1].str();
      if (target.rfind("http://", 0) == 0 || target.rfind("https://", 0) == 0 || target.rfind("mailto:", 0) == 0)
        continue;
      target = target.substr(0, target.find('#'));
      if (target.empty()) continue;
      links.push_back({page, static_cast<int>(i + 1), target});
    }
  }
  return links;
}

// README.md and every Markdown page reachable from it through relative links, README.md first.
inline std::vector<fs::path> pages() {
  std::vector<fs::path> found;
  std::set<fs::path> seen;
  std::deque<fs::path> todo{fs::canonical(repo_root() / "README.md")};
  while (!todo.empty()) {
    const fs::path page = todo.front();
    todo.pop_front();
    if (!seen.insert(page).second) continue;
    found.push_back(page);
    for (const Link& l : relative_links(page)) {
      const fs::path target = page.parent_path() / l.target;
      if (target.extension() == ".md" && fs::is_regular_file(target)) todo.push_back(fs::canonical(target));
    }
  }
  return found;
}

// One command of a runnable example, as a reader would type it.
struct Example {
  fs::path page;
  int line = 0;             // 1-based line of its `$ `
  std::string command;      // the lines after "$ ", continuation lines (ending in \) joined by newlines
  std::string not_run;      // "needs: ..." or "long ...": the test leaves it out; "" where it runs
  int expected_status = 0;  // from a `# exit N` comment, else 0
  std::string shown_start;  // the start of the first output line the page shows (up to its first digit)
};

// What a shown output line must start with in the real output: the line up to its first digit (numbers
// are measurements), trailing spaces cut; "" where that is under 8 characters or the line is elided.
inline std::string stable_start(const std::string& shown) {
  if (shown.rfind("...", 0) == 0) return {};
  std::string start = shown.substr(0, shown.find_first_of("0123456789"));
  while (!start.empty() && start.back() == ' ') start.pop_back();
  return start.size() >= 8 ? start : std::string();
}

// The marker of a command's last line: "# needs: WHAT", "# long", "# exit N" at its end.
inline void read_marker(const std::string& last_line, Example& e) {
  static const std::regex marker(R"(\s#\s*(needs:.*|long.*|exit\s+([0-9]+).*)$)");
  std::smatch m;
  if (!std::regex_search(last_line, m, marker)) return;
  if (m[2].matched) {
    e.expected_status = std::stoi(m[2].str());
  } else {
    e.not_run = m[1].str();
  }
}

inline std::vector<Example> examples(const fs::path& page) {
  std::vector<Example> found;
  const auto lines = read_lines(page);
  bool in_console = false, in_block = false;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (is_fence(lines[i])) {
      in_console = !in_block && lines[i] == "```console";
      in_block = !in_block;
      continue;
    }
    if (!in_console || lines[i].rfind("$ ", 0) != 0) continue;
    Example e{page, static_cast<int>(i + 1), lines[i].substr(2), "", 0, ""};
    std::string last = lines[i];
    while (!last.empty() && last.back() == '\\' && i + 1 < lines.size()) {
      last = lines[++i];
      e.command += "\n" + last;
    }
    read_marker(last, e);
    if (i + 1 < lines.size() && lines[i + 1].rfind("$ ", 0) != 0 && !is_fence(lines[i + 1])) {
      e.shown_start = stable_start(lines[i + 1]);
    }
    found.push_back(e);
  }
  return found;
}

}  // namespace pipebench::docs
