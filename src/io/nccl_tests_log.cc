// SPDX-License-Identifier: Apache-2.0
// nccl-tests text output, read line by line. Every line of the format is printed by one call in
// nccl-tests' src/util.cu (2.17.4+) or src/common.cu and src/<op>.cu (earlier): the header in
// writeDeviceReport, the column names in writeResultHeader, a row in writeBenchmarkLinePreamble +
// writeBenchmarkLineBody x2, the footer in writeResultFooter. The column-name line says which columns a
// row has, so one reader serves every layout.
#include "io/nccl_tests_log.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/file_io.h"
#include "core/text.h"
#include "core/utf8.h"
#include "io/nccl_tests_parts.h"
#include "io/nccl_tests_row_order.h"

namespace pipebench {

namespace {

std::vector<std::string> words(std::string_view line) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
    const std::size_t start = i;
    while (i < line.size() && !std::isspace(static_cast<unsigned char>(line[i]))) ++i;
    if (i > start) out.emplace_back(line.substr(start, i - start));
  }
  return out;
}

// The integer after the words `key` in a header line ("nGpus 8", "warmup iters: 1", "iters: 20"): the
// first match whose word before is not `not_after` ("iters:" must not be the end of "warmup iters:").
int int_after(const std::vector<std::string>& w, std::initializer_list<const char*> key, int fallback,
              std::initializer_list<const char*> not_after = {}) {
  const std::size_t n = key.size();
  for (std::size_t i = 0; i + n < w.size(); ++i) {
    if (!std::equal(key.begin(), key.end(), w.begin() + static_cast<std::ptrdiff_t>(i))) continue;
    if (i > 0 && std::find(not_after.begin(), not_after.end(), w[i - 1]) != not_after.end()) continue;
    char* end = nullptr;
    const long v = std::strtol(w[i + n].c_str(), &end, 10);
    if (end == w[i + n].c_str() || end != w[i + n].c_str() + w[i + n].size() || v < 0 || v > 1000000000) {
      return fallback;
    }
    return static_cast<int>(v);
  }
  return fallback;
}

// `#  Rank  0 Group  0 Pid   1191 on         vm device  0 [0000:00:06] NVIDIA H200` (2.13+), and before
// 2.13 `#   Rank  0 Pid   1191 on         vm device  0 [0x06] Tesla V100-SXM2-32GB` (no group).
bool parse_device_line(std::string_view line, NcclTestsDevice& d) {
  const auto w = words(line);
  if (w.size() < 9 || w[0] != "#" || w[1] != "Rank") return false;
  std::size_t i = 2;
  const auto number = [&w](std::size_t at, int& out) {
    if (at >= w.size()) return false;
    char* end = nullptr;
    const long v = std::strtol(w[at].c_str(), &end, 10);
    if (end == w[at].c_str() || end != w[at].c_str() + w[at].size() || v < 0 || v > (1 << 24)) return false;
    out = static_cast<int>(v);
    return true;
  };
  if (!number(i++, d.rank)) return false;
  if (i < w.size() && w[i] == "Group") {
    if (!number(i + 1, d.group)) return false;
    i += 2;
  }
  if (i + 6 > w.size() || w[i] != "Pid" || !number(i + 1, d.pid) || w[i + 2] != "on") return false;
  d.host = w[i + 3];
  if (w[i + 4] != "device" || !number(i + 5, d.device)) return false;
  const auto open = line.find('[');
  const auto close = line.find(']', open == std::string_view::npos ? 0 : open);
  if (open == std::string_view::npos || close == std::string_view::npos) return false;
  d.bus_id = std::string(line.substr(open + 1, close - open - 1));
  const auto model = words(line.substr(close + 1));
  for (const auto& m : model) d.model += (d.model.empty() ? "" : " ") + m;
  return true;
}

// The column-name line: `#  size  count  type  redop  root  time  algbw  busbw  #wrong  time ...`.
struct Columns {
  std::vector<std::string> prefix;  // size count type [redop] [root]
  std::vector<std::string> block;   // time algbw busbw #wrong|error [i_min i_max i_p99 i_cv%]
  bool timestamp = false;
  bool cputime = false;
  [[nodiscard]] bool known() const { return !block.empty(); }
  [[nodiscard]] std::size_t width() const { return prefix.size() + 2 * block.size() + (timestamp ? 2 : 0); }
};

bool parse_columns(std::string_view line, Columns& c) {
  auto w = words(line);
  if (w.size() < 4 || w[0] != "#" || w[1] != "size" || w[2] != "count" || w[3] != "type") return false;
  w.erase(w.begin());
  Columns out;
  std::size_t i = 0;
  for (; i < w.size() && w[i] != "time" && w[i] != "cputime"; ++i) out.prefix.push_back(w[i]);
  if (i == w.size()) return false;
  out.cputime = w[i] == "cputime";
  const std::size_t start = i++;
  while (i < w.size() && w[i] != w[start]) ++i;
  if (i == w.size()) return false;
  out.block.assign(w.begin() + static_cast<std::ptrdiff_t>(start), w.begin() + static_cast<std::ptrdiff_t>(i));
  const std::size_t end = i + out.block.size();
  if (end > w.size() || !std::equal(out.block.begin(), out.block.end(), w.begin() + static_cast<std::ptrdiff_t>(i))) {
    return false;
  }
  out.timestamp = end < w.size() && w[end] == "timestamp";
  if (out.block.size() < 4 || out.block[1] != "algbw" || out.block[2] != "busbw") return false;
  c = out;
  return true;
}

// The whole word is the number: a NUL inside it ("22\0 2") ends strtod early but not the word.
bool finite_number(const std::string& s, double& out) {
  char* end = nullptr;
  out = std::strtod(s.c_str(), &end);
  return end != s.c_str() && end == s.c_str() + s.size() && std::isfinite(out);
}

bool size_number(const std::string& s, std::uint64_t& out) {
  if (s.empty() || s.size() > 19 || !std::all_of(s.begin(), s.end(), [](char ch) { return ch >= '0' && ch <= '9'; })) {
    return false;
  }
  out = std::strtoull(s.c_str(), nullptr, 10);
  return true;
}

// One placement's block of a row into r; "" or the kind of skip.
std::string read_block(const std::vector<std::string>& w, std::size_t at, const Columns& c, ResultRecord& r) {
  double time = 0, alg = 0, bus = 0;
  if (!finite_number(w[at], time) || !finite_number(w[at + 1], alg) || !finite_number(w[at + 2], bus)) {
    return "table rows with a value that is not a number";
  }
  if (time <= 0 || alg < 0 || bus < 0 || time > 1e12 || alg > 1e9 || bus > 1e9) {
    return "table rows with a time or bandwidth out of range";
  }
  r.time_us = time;
  r.algbw_gbps = alg;
  r.busbw_gbps = bus;
  r.wrong = -1;
  // The oldest layout's "error" column is the largest deviation (%5.0le), not a count of wrong elements.
  if (c.block[3] == "#wrong" && w[at + 3] != "N/A") {
    double wrong = 0;
    if (!finite_number(w[at + 3], wrong) || wrong < 0 || wrong > 9e18) return "table rows with an unreadable #wrong";
    r.wrong = static_cast<std::int64_t>(wrong);
  }
  return "";
}

// A table row into two records (out-of-place, in-place); "" or the kind of skip.
std::string read_row(const std::vector<std::string>& w, const Columns& c, std::vector<ResultRecord>& out) {
  if (w.size() < c.width()) return "table rows cut short";
  if (w.size() > c.width()) return "table rows with extra text (output of another process mixed in?)";
  ResultRecord base;
  base.backend = "nccl";
  if (!size_number(w[0], base.size_bytes) || !size_number(w[1], base.count)) {
    return "table rows with a size or count that is not a number";
  }
  base.dtype = w[2];
  base.redop = "none";
  for (std::size_t i = 3; i < c.prefix.size(); ++i) {
    if (c.prefix[i] == "redop") base.redop = w[i];
    if (c.prefix[i] == "root") {
      char* end = nullptr;
      const long root = std::strtol(w[i].c_str(), &end, 10);
      if (end == w[i].c_str() || end != w[i].c_str() + w[i].size() || root < -1 || root > (1 << 24)) {
        return "table rows with a root that is not a rank";
      }
      base.root = static_cast<int>(root);
    }
  }
  if (const std::string why = nccl_tests_names_problem(base.dtype, base.redop); !why.empty())
    return "table rows " + why;
  ResultRecord oop = base, ip = base;
  ip.in_place = true;
  std::string why = read_block(w, c.prefix.size(), c, oop);
  if (why.empty()) why = read_block(w, c.prefix.size() + c.block.size(), c, ip);
  if (!why.empty()) return why;
  out.push_back(oop);
  out.push_back(ip);
  return "";
}

// The reader's state: the test being read, and the file's tests so far.
class TextReader {
 public:
  explicit TextReader(const NcclTestsHints& hints) : hints_(hints) {}
  void line(std::string_view line);
  // A line not read (longer than kMaxNcclTestsLineBytes): counted.
  void skip_line(const char* why) {
    ++line_no_;
    ++file_.skipped[why];
  }
  NcclTestsFile finish();

 private:
  void start_new_test_if_read();
  void comment(std::string_view line);
  void refuse(const std::string& why) {
    if (file_.refused.empty()) file_.refused = "line " + std::to_string(line_no_) + ": " + why;
  }
  const NcclTestsHints& hints_;
  NcclTestsFile file_;
  NcclTestsLog log_;
  NcclTestsRowOrder order_;  // the test's rows so far
  Columns columns_;
  std::size_t line_no_ = 0;
};

void TextReader::start_new_test_if_read() {
  if (log_.records.empty() && !columns_.known()) return;
  file_.logs.push_back(std::move(log_));
  log_ = NcclTestsLog{};
  order_ = NcclTestsRowOrder{};
  columns_ = Columns{};
}

void TextReader::comment(std::string_view line) {
  NcclTestsDevice d;
  Columns c;
  if (starts_with(line, "# nccl-tests version")) {
    start_new_test_if_read();
    const auto w = words(line);
    if (w.size() > 3) log_.version = w[3];
    const auto at = line.find("nccl-library=");
    if (at != std::string_view::npos)
      log_.nccl_version = nccl_version_text(std::strtol(std::string(line.substr(at + 13)).c_str(), nullptr, 10));
  } else if (starts_with(line, "# Collective test starting:")) {
    if (!log_.program.empty() || !log_.records.empty()) start_new_test_if_read();
    const auto w = words(line.substr(27));
    if (!w.empty()) log_.program = w[0];
  } else if (starts_with(line, "# nThread ")) {
    if (log_.nthreads > 0 || !log_.records.empty()) start_new_test_if_read();
    const auto w = words(line);
    log_.nthreads = int_after(w, {"nThread"}, 0);
    log_.ngpus = int_after(w, {"nGpus"}, 0);
    log_.iters = int_after(w, {"iters:"}, 0, {"warmup", "agg"});
    log_.warmup = int_after(w, {"warmup", "iters:"}, 0);
    log_.agg_iters = int_after(w, {"agg", "iters:"}, 1);
    log_.graph = int_after(w, {"graph:"}, 0);
  } else if (parse_device_line(line, d)) {
    log_.devices.push_back(d);
  } else if (parse_columns(line, c)) {
    if (!log_.records.empty()) start_new_test_if_read();
    columns_ = c;
  } else if (starts_with(line, "# Avg bus bandwidth")) {
    if (log_.concluded) refuse(std::string("a second footer in one test: ") + kNcclTestsRunsMixed);
    if (const std::string why = order_.footer(); !why.empty()) refuse(why + ": " + kNcclTestsRunsMixed);
    const auto colon = line.find(':');
    double bw = 0;
    const auto w = words(line.substr(colon == std::string_view::npos ? line.size() : colon + 1));
    if (!w.empty() && finite_number(w[0], bw) && bw >= 0) log_.avg_busbw_gbps = bw;
    // Every version prints this footer line once the table is done (writeResultFooter).
    log_.concluded = true;
  }
}

void TextReader::line(std::string_view line) {
  ++line_no_;
  while (!line.empty() && (line.back() == '\r' || line.back() == '\n')) line.remove_suffix(1);
  const auto w = words(line);
  if (w.empty()) return;
  std::uint64_t first = 0;
  const bool row = size_number(w[0], first);
  if (!row &&
      (line.find(" NCCL INFO ") != std::string_view::npos || line.find(" NCCL WARN ") != std::string_view::npos)) {
    // NCCL_DEBUG=INFO output: the library's own version line is worth keeping for old logs.
    const auto at = line.find("NCCL version ");
    if (at != std::string_view::npos && log_.nccl_version.empty()) {
      const auto v = words(line.substr(at + 13));
      if (!v.empty()) log_.nccl_version = v[0].substr(0, v[0].find('+'));
    }
    ++file_.skipped["NCCL debug lines (NCCL_DEBUG output, not data)"];
    return;
  }
  if (w[0][0] == '#') return comment(line);
  if (!row) {
    ++file_.skipped["lines that are not nccl-tests output"];
    return;
  }
  if (!columns_.known()) {
    // A log whose head was cut off: its rows have the layout every version since 2.13 prints
    // (`size count type redop root` + 4 columns per placement) or they cannot be read.
    Columns since_2_13;
    since_2_13.prefix = {"size", "count", "type", "redop", "root"};
    since_2_13.block = {"time", "algbw", "busbw", "#wrong"};
    if (w.size() != since_2_13.width()) {
      ++file_.skipped["table rows before any column header"];
      return;
    }
    columns_ = since_2_13;
  }
  if (log_.concluded) refuse(std::string("a table row after the test's footer: ") + kNcclTestsRunsMixed);
  const std::string why = read_row(w, columns_, log_.records);
  if (!why.empty()) {
    ++file_.skipped[why];
    return;
  }
  const ResultRecord& r = log_.records.back();
  if (const std::string order = order_.add(r.dtype, r.redop, r.root, r.size_bytes); !order.empty()) {
    refuse(order + ": " + kNcclTestsRunsMixed);
  }
}

NcclTestsFile TextReader::finish() {
  start_new_test_if_read();
  for (auto& log : file_.logs) {
    log.format = "text";
    finish_log(log, hints_, file_.skipped);
  }
  return std::move(file_);
}

}  // namespace

NcclTestsFile parse_nccl_tests_text(std::string_view text, const NcclTestsHints& hints) {
  TextReader reader(hints);
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    reader.line(text.substr(start, end - start));
    start = end + 1;
  }
  return reader.finish();
}

namespace {

// Text read in blocks and handed to the reader line by line, each made valid UTF-8 on its own; a line
// longer than the limit is dropped as it comes (its bytes are never held) and counted.
class LineFeeder {
 public:
  explicit LineFeeder(TextReader& reader) : reader_(reader) {}
  void feed(std::string_view block) {
    while (!block.empty()) {
      const std::size_t end = block.find('\n');
      const std::string_view piece = block.substr(0, end);
      if (line_.size() + piece.size() > kMaxNcclTestsLineBytes) {
        too_long_ = true;
        line_.clear();
      } else if (!too_long_) {
        line_.append(piece);
      }
      if (end == std::string_view::npos) return;
      end_line();
      block.remove_prefix(end + 1);
    }
  }
  void end() {
    if (!line_.empty() || too_long_) end_line();
  }
  std::size_t replaced_bytes = 0;

 private:
  void end_line() {
    if (too_long_) {
      reader_.skip_line("lines longer than 64 KiB (not nccl-tests output)");
    } else if (valid_utf8(line_)) {
      reader_.line(line_);
    } else {
      std::size_t n = 0;
      reader_.line(utf8_replaced(line_, &n));
      replaced_bytes += n;
    }
    line_.clear();
    too_long_ = false;
  }
  TextReader& reader_;
  std::string line_;
  bool too_long_ = false;
};

}  // namespace

NcclTestsFile read_nccl_tests_file(const std::string& flag, const std::string& path, const NcclTestsHints& hints) {
  require_input_file(flag, path);
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UsageError(flag + " " + path + ": cannot be read");
  std::vector<char> buf(1 << 16);
  std::string head;  // up to the first character that is not a space: '{' opens -J JSON
  while (head.find_first_not_of(" \t\r\n") == std::string::npos &&
         (in.read(buf.data(), static_cast<std::streamsize>(buf.size())) || in.gcount() > 0)) {
    head.append(buf.data(), static_cast<std::size_t>(in.gcount()));
    if (head.size() > kMaxNcclTestsLineBytes) break;  // only spaces so far: text (empty lines)
  }
  const std::size_t first = head.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && head[first] == '{') {
    std::string text = std::move(head);
    while (in.read(buf.data(), static_cast<std::streamsize>(buf.size())) || in.gcount() > 0) {
      text.append(buf.data(), static_cast<std::size_t>(in.gcount()));
      if (text.size() > kMaxNcclTestsJsonBytes) {
        throw UsageError(flag + " " + path + ": nccl-tests -J JSON larger than " +
                         std::to_string(kMaxNcclTestsJsonBytes >> 20) + " MiB (refused; -J files are kilobytes)");
      }
    }
    return parse_nccl_tests(text, hints);
  }
  TextReader reader(hints);
  LineFeeder lines(reader);
  lines.feed(head);
  while (in.read(buf.data(), static_cast<std::streamsize>(buf.size())) || in.gcount() > 0)
    lines.feed(std::string_view(buf.data(), static_cast<std::size_t>(in.gcount())));
  if (in.bad()) throw UsageError(flag + " " + path + ": cannot be read");
  lines.end();
  NcclTestsFile f = reader.finish();
  f.replaced_bytes = lines.replaced_bytes;
  return f;
}

NcclTestsFile parse_nccl_tests(std::string_view text, const NcclTestsHints& hints) {
  if (!valid_utf8(text)) {
    std::size_t replaced = 0;
    const std::string clean = utf8_replaced(text, &replaced);
    NcclTestsFile f = parse_nccl_tests(clean, hints);
    f.replaced_bytes = replaced;
    return f;
  }
  std::size_t i = 0;
  while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
  if (i < text.size() && text[i] == '{') return parse_nccl_tests_json(text, hints);
  return parse_nccl_tests_text(text, hints);
}

}  // namespace pipebench
