// SPDX-License-Identifier: Apache-2.0
// Profile format detection.
#include "trace/file_format.h"

#include <sys/stat.h>

#include <cctype>
#include <cstring>
#include <fstream>

#include "core/error.h"
#include "core/file_io.h"

namespace pipebench {

TraceFormat detect_trace_format(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) throw UsageError(path + ": no such file");
  if (S_ISDIR(st.st_mode)) throw UsageError(path + ": a directory, not a profile");
  require_input_file("trace", path);  // a FIFO or device: one line, never a blocking read
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UsageError(path + ": cannot be read");
  char head[512] = {};
  in.read(head, sizeof head);
  const auto n = static_cast<std::size_t>(in.gcount());
  if (n == 0) throw UsageError(path + ": empty file");
  // https://www.sqlite.org/fileformat.html §1.3: the header string "SQLite format 3\0".
  static constexpr char kSqliteMagic[16] = "SQLite format 3";  // with its \0
  if (n >= sizeof kSqliteMagic && std::memcmp(head, kSqliteMagic, sizeof kSqliteMagic) == 0)
    return TraceFormat::kSqlite;
  if (n < sizeof kSqliteMagic && std::memcmp(head, kSqliteMagic, n) == 0) {
    throw UsageError(path + ": a truncated SQLite file (" + std::to_string(n) + " bytes)");
  }
  // RFC 1952 §2.3.1 ID1 ID2; what it holds is checked when read.
  if (n >= 2 && std::memcmp(head, "\x1f\x8b", 2) == 0) return TraceFormat::kGzipJson;
  std::size_t i = n >= 3 && std::memcmp(head, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;  // after a UTF-8 byte order mark
  while (i < n && std::isspace(static_cast<unsigned char>(head[i]))) ++i;
  if (i < n && (head[i] == '{' || head[i] == '[')) return TraceFormat::kJson;
  if (i == n) throw UsageError(path + ": only white space, not a profile");
  throw UsageError(path + ": neither an Nsight Systems SQLite export nor a JSON trace");
}

}  // namespace pipebench
