// SPDX-License-Identifier: Apache-2.0
// Whole writes with a reserve, elements appended in place (see the header).
#include "report/json_array_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/file_io.h"

namespace pipebench {
namespace {

// The reserve after a whole write: at least this, else as large as the elements already written.
constexpr std::int64_t kMinReserveBytes = 16 * 1024;

// The piece size of a whole write's copy of the elements (and of its spaces).
constexpr std::int64_t kCopyBytes = 1 << 20;

std::int64_t page_bytes() {
  const long p = ::sysconf(_SC_PAGESIZE);
  return p > 0 ? p : 4096;
}

}  // namespace

JsonArrayFile::JsonArrayFile(std::string flag, std::string path, std::string key, int indent, Shell shell)
    : flag_(std::move(flag)),
      path_(std::move(path)),
      key_(std::move(key)),
      indent_(std::max(indent, 1)),
      shell_(std::move(shell)),
      lock_(flag_, path_) {
  write_whole(true);
}

JsonArrayFile::~JsonArrayFile() {
  if (!compact_) {
    try {
      write_whole(false);
    } catch (const std::exception&) {
      // The file on disk is valid and holds every element; only its reserve of spaces stays.
    }
  }
  close_fd();
}

void JsonArrayFile::close_fd() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

void JsonArrayFile::read_elements(const std::function<void(std::string_view)>& put) const {
  if (next_at_ > elements_begin_ && fd_ < 0) throw Error(named() + ": the records written so far cannot be read back");
  std::string buf(kCopyBytes, '\0');
  for (std::int64_t at = elements_begin_; at < next_at_;) {
    const auto want = static_cast<std::size_t>(std::min<std::int64_t>(kCopyBytes, next_at_ - at));
    const ssize_t n = ::pread(fd_, buf.data(), want, at);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      throw Error(named() + ": cannot read back the records written so far (" +
                  (n < 0 ? std::string(std::strerror(errno)) : std::string("the file was shortened")) + ")");
    }
    put(std::string_view(buf.data(), static_cast<std::size_t>(n)));
    at += n;
  }
}

std::int64_t JsonArrayFile::copy_elements(const std::function<void(std::string_view)>& put, bool indented) const {
  std::int64_t bytes = 0;
  if (!indented) {
    read_elements([&](std::string_view piece) {
      put(piece);
      bytes += static_cast<std::int64_t>(piece.size());
    });
    return bytes;
  }
  // Each element (compact or indented, between commas and spaces) is split off by its braces, outside
  // strings, and laid out as the document's dump(indent) lays out an element of a top-level array.
  const std::string pad(static_cast<std::size_t>(2 * indent_), ' ');
  std::string element;
  int depth = 0;
  bool in_string = false, escaped = false;
  std::int64_t count = 0;
  read_elements([&](std::string_view piece) {
    for (const char c : piece) {
      if (depth == 0 && c != '{') continue;  // separators
      element += c;
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
        const std::string text = nlohmann::ordered_json::parse(element).dump(
            indent_, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
        std::string out = (count++ == 0 ? "\n" : ",\n") + pad;
        for (const char t : text) {
          out += t;
          if (t == '\n') out += pad;  // newlines inside strings are escaped: each one is layout
        }
        put(out);
        bytes += static_cast<std::int64_t>(out.size());
        element.clear();
      }
    }
  });
  return bytes;
}

void JsonArrayFile::reopen(std::int64_t size_bytes) {
  close_fd();
  // The file just renamed into place; O_NOFOLLOW and fstat make sure it still is that regular file.
  const int fd = ::open(path_.c_str(), O_RDWR | O_NOFOLLOW | O_CLOEXEC);
  struct stat st {};
  if (fd < 0 || ::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size != static_cast<off_t>(size_bytes)) {
    const int err = errno;
    if (fd >= 0) ::close(fd);
    throw Error(named() + ": cannot reopen the file just written (" +
                (fd < 0 ? std::string(std::strerror(err)) : std::string("replaced by another file")) + ")");
  }
  fd_ = fd;
}

void JsonArrayFile::write_whole(bool with_reserve, std::string_view element) {
  const std::string shell = shell_();
  // A top-level key is the only text indented by exactly `indent` spaces after a real newline (newlines
  // inside strings are escaped), so this occurs once.
  const std::string key_text = "\n" + std::string(static_cast<std::size_t>(indent_), ' ') + "\"" + key_ + "\": [";
  const std::size_t at = shell.find(key_text);
  if (at == std::string::npos) throw Error(named() + ": internal error: no \"" + key_ + "\" array in the document");
  const std::size_t open = at + key_text.size();
  const std::string_view head(shell.data(), open);
  const std::string_view tail(shell.data() + open, shell.size() - open);  // starts with the array's "]"
  const auto element_bytes = static_cast<std::int64_t>(element.size());
  const std::int64_t reserve =
      with_reserve ? std::max<std::int64_t>(kMinReserveBytes, next_at_ - elements_begin_ + element_bytes) : 0;
  const std::string close_pad = "\n" + std::string(static_cast<std::size_t>(indent_), ' ');
  std::int64_t elements_bytes = 0;
  const std::int64_t size = write_output_file(flag_, path_, [&](const std::function<void(std::string_view)>& put) {
    put(head);
    elements_bytes = copy_elements(put, !with_reserve) + element_bytes;
    put(element);
    if (with_reserve) {
      const std::string spaces(static_cast<std::size_t>(std::min<std::int64_t>(reserve, kCopyBytes)), ' ');
      for (std::int64_t left = reserve; left > 0; left -= static_cast<std::int64_t>(spaces.size()))
        put(std::string_view(spaces.data(), static_cast<std::size_t>(std::min<std::int64_t>(left, spaces.size()))));
    } else if (elements_ > 0) {
      put(close_pad);
    }
    put(tail);
  });
  bytes_written_ += size;
  ++whole_writes_;
  compact_ = !with_reserve;
  elements_begin_ = static_cast<std::int64_t>(head.size());
  next_at_ = elements_begin_ + elements_bytes;
  reserve_end_ = next_at_ + reserve;
  reopen(size);
}

bool JsonArrayFile::append_in_place(const std::string& chunk) {
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

void JsonArrayFile::append(const std::string& element) {
  const std::string chunk =
      (elements_ == 0 ? "\n" : ",\n") + std::string(static_cast<std::size_t>(2 * indent_), ' ') + element;
  if (compact_ || !append_in_place(chunk)) write_whole(true, chunk);  // the elements copied, then this one
  ++elements_;
}

void JsonArrayFile::rewrite(bool final_layout) { write_whole(!final_layout); }

}  // namespace pipebench
