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
constexpr std::size_t kMinReserveBytes = 16 * 1024;

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

void ResultsJson::write_whole(bool with_reserve) {
  close_fd();
  if (!with_reserve) {
    const std::string text = doc_.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
    write_file_atomically(path_, text);
    bytes_written_ += static_cast<std::int64_t>(text.size());
    ++whole_writes_;
    compact_ = true;
    return;
  }
  nlohmann::json records = std::move(doc_["records"]);
  doc_["records"] = nlohmann::json::array();
  const std::string shell = doc_.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  doc_["records"] = std::move(records);
  const std::size_t at = shell.find(kRecordsKey);
  if (at == std::string::npos) throw Error(path_ + ": internal error: no records array in the results file");
  const std::size_t open = at + std::strlen(kRecordsKey);
  head_ = shell.substr(0, open);
  tail_ = shell.substr(open);  // starts with the records' "]"
  const std::size_t reserve = std::max(kMinReserveBytes, records_text_.size());
  const std::string text = head_ + records_text_ + std::string(reserve, ' ') + tail_;
  write_file_atomically(path_, text);
  bytes_written_ += static_cast<std::int64_t>(text.size());
  ++whole_writes_;
  compact_ = false;
  next_at_ = static_cast<std::int64_t>(head_.size() + records_text_.size());
  reserve_end_ = next_at_ + static_cast<std::int64_t>(reserve);
  // The file just renamed into place; O_NOFOLLOW and fstat make sure it still is that regular file.
  const int fd = ::open(path_.c_str(), O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
  struct stat st {};
  if (fd < 0 || ::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size != static_cast<off_t>(text.size())) {
    const int err = errno;
    if (fd >= 0) ::close(fd);
    throw Error(path_ + ": cannot reopen the results file just written (" +
                (fd < 0 ? std::string(std::strerror(err)) : std::string("replaced by another file")) + ")");
  }
  fd_ = fd;
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
  nlohmann::json j = record_to_json(r);
  const std::string chunk = (doc_["records"].empty() ? "\n    " : ",\n    ") +
                            j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  doc_["records"].push_back(std::move(j));
  records_text_ += chunk;
  if (compact_ || !append_in_place(chunk)) write_whole(true);
}

void ResultsJson::finish() { write_whole(false); }

void ResultsJson::set_field(const std::string& key, nlohmann::json value) {
  doc_[key] = std::move(value);
  write_whole(!compact_);
}

}  // namespace pipebench
