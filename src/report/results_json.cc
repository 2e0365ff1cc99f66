// SPDX-License-Identifier: Apache-2.0
// Results JSON writer: whole writes with a reserve, records appended in place (see the header).
#include "report/results_json.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "core/error.h"
#include "core/file_io.h"
#include "io/results_io.h"

namespace pipebench {
namespace {

// The reserve after a whole write: at least this, else as large as the records already written.
constexpr std::int64_t kMinReserveBytes = 16 * 1024;

// The piece size of a whole write's copy of the records (and of its spaces).
constexpr std::int64_t kCopyBytes = 1 << 20;

// How the empty records array appears in dump(2): a top-level key is the only text indented by exactly
// two spaces after a real newline (newlines inside strings are escaped), so this occurs once.
constexpr const char* kRecordsKey = "\n  \"records\": [";

std::int64_t page_bytes() {
  const long p = ::sysconf(_SC_PAGESIZE);
  return p > 0 ? p : 4096;
}

}  // namespace

void write_file_atomically(const std::string& path, const std::string& text) { write_output_file("", path, text); }

ResultsJson::ResultsJson(std::string path, nlohmann::json header) : path_(std::move(path)), doc_(std::move(header)) {
  doc_ = results_header(std::move(doc_));
  write_whole(true);
}

ResultsJson::~ResultsJson() {
  if (!compact_) {
    try {
      write_whole(false);
    } catch (const std::exception&) {
      // The file on disk is valid and holds every record; only its reserve of spaces stays.
    }
  }
  close_fd();
}

void ResultsJson::close_fd() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

void ResultsJson::read_records(const std::function<void(std::string_view)>& put) const {
  if (next_at_ > records_begin_ && fd_ < 0) throw Error(path_ + ": the records written so far cannot be read back");
  std::string buf(kCopyBytes, '\0');
  for (std::int64_t at = records_begin_; at < next_at_;) {
    const auto want = static_cast<std::size_t>(std::min<std::int64_t>(kCopyBytes, next_at_ - at));
    const ssize_t n = ::pread(fd_, buf.data(), want, at);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      throw Error(path_ + ": cannot read back the records written so far (" +
                  (n < 0 ? std::string(std::strerror(errno)) : std::string("the file was shortened")) + ")");
    }
    put(std::string_view(buf.data(), static_cast<std::size_t>(n)));
    at += n;
  }
}

std::int64_t ResultsJson::copy_records(const std::function<void(std::string_view)>& put, bool indented) const {
  std::int64_t bytes = 0;
  if (!indented) {
    read_records([&](std::string_view piece) {
      put(piece);
      bytes += static_cast<std::int64_t>(piece.size());
    });
    return bytes;
  }
  // Each record (compact or indented, between commas and spaces) is split off by its braces, outside
  // strings, and laid out as the document's dump(2) lays out an element of "records".
  std::string record;
  int depth = 0;
  bool in_string = false, escaped = false;
  std::int64_t count = 0;
  read_records([&](std::string_view piece) {
    for (const char c : piece) {
      if (depth == 0 && c != '{') continue;  // separators
      record += c;
      if (in_string) {
        if (escaped) {
          escaped = false;
        } else if (c == '\\') {
          escaped = true;
        } else if (c == '"') {
          in_string = false;
        }
        continue;
      }
      if (c == '"') in_string = true;
      if (c == '{' || c == '[') ++depth;
      if ((c == '}' || c == ']') && --depth == 0) {
        std::string text = nlohmann::json::parse(record).dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
        std::string out = count++ == 0 ? "\n    " : ",\n    ";
        for (const char t : text) {
          out += t;
          if (t == '\n') out += "    ";  // newlines inside strings are escaped: each one is layout
        }
        put(out);
        bytes += static_cast<std::int64_t>(out.size());
        record.clear();
      }
    }
  });
  return bytes;
}

void ResultsJson::reopen(std::int64_t size_bytes) {
  close_fd();
  // The file just renamed into place; O_NOFOLLOW and fstat make sure it still is that regular file.
  const int fd = ::open(path_.c_str(), O_RDWR | O_NOFOLLOW | O_CLOEXEC);
  struct stat st {};
  if (fd < 0 || ::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size != static_cast<off_t>(size_bytes)) {
    const int err = errno;
    if (fd >= 0) ::close(fd);
    throw Error(path_ + ": cannot reopen the results file just written (" +
                (fd < 0 ? std::string(std::strerror(err)) : std::string("replaced by another file")) + ")");
  }
  fd_ = fd;
}

void ResultsJson::write_whole(bool with_reserve, std::string_view record) {
  const std::string shell = doc_.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  const std::size_t at = shell.find(kRecordsKey);
  if (at == std::string::npos) throw Error(path_ + ": internal error: no records array in the results file");
  const std::size_t open = at + std::strlen(kRecordsKey);
  const std::string_view head(shell.data(), open);
  const std::string_view tail(shell.data() + open, shell.size() - open);  // starts with the records' "]"
  const auto record_bytes = static_cast<std::int64_t>(record.size());
  const std::int64_t reserve =
      with_reserve ? std::max<std::int64_t>(kMinReserveBytes, next_at_ - records_begin_ + record_bytes) : 0;
  std::int64_t records_bytes = 0;
  const std::int64_t size = write_output_file("", path_, [&](const std::function<void(std::string_view)>& put) {
    put(head);
    records_bytes = copy_records(put, !with_reserve) + record_bytes;
    put(record);
    if (with_reserve) {
      const std::string spaces(static_cast<std::size_t>(std::min<std::int64_t>(reserve, kCopyBytes)), ' ');
      for (std::int64_t left = reserve; left > 0; left -= static_cast<std::int64_t>(spaces.size()))
        put(std::string_view(spaces.data(), static_cast<std::size_t>(std::min<std::int64_t>(left, spaces.size()))));
    } else if (records_ > 0) {
      put("\n  ");
    }
    put(tail);
  });
  bytes_written_ += size;
  ++whole_writes_;
  compact_ = !with_reserve;
  records_begin_ = static_cast<std::int64_t>(head.size());
  next_at_ = records_begin_ + records_bytes;
  reserve_end_ = next_at_ + reserve;
  reopen(size);
}

bool ResultsJson::append_in_place(const std::string& chunk) {
  if (fd_ < 0) return false;
  const std::int64_t page = page_bytes();
  const auto size = static_cast<std::int64_t>(chunk.size());
  if (size > page) return false;
  std::int64_t at = next_at_;
  if (at % page + size > page) at = (at / page + 1) * page;  // over spaces: still valid JSON
  if (at + size > reserve_end_) return false;
  ssize_t n;
  do {
    n = ::pwrite(fd_, chunk.data(), chunk.size(), at);
  } while (n < 0 && errno == EINTR);
  // A failed or short write (the disk, not the reserve: its bytes exist) falls back to a whole write,
  // which replaces whatever part landed.
  if (n != static_cast<ssize_t>(chunk.size())) return false;
  next_at_ = at + size;
  bytes_written_ += size;
  return true;
}

void ResultsJson::add(const ResultRecord& r) {
  if (!is_measurement(r)) return;  // --split: the groups' own records are kept, not the row over all
  const std::string chunk = (records_ == 0 ? "\n    " : ",\n    ") +
                            record_to_json(r).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  if (compact_ || !append_in_place(chunk)) write_whole(true, chunk);  // the records copied, then this one
  ++records_;
}

void ResultsJson::finish() { write_whole(false); }

void ResultsJson::set_field(const std::string& key, nlohmann::json value) {
  doc_[key] = std::move(value);
  write_whole(!compact_);
}

}  // namespace pipebench
