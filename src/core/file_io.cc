// SPDX-License-Identifier: Apache-2.0
// Input and output files with POSIX calls: the file type is checked before anything is read or
// replaced, and every write(2) and close(2) is checked (a full disk shows at either).
#include "core/file_io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "core/error.h"

namespace pipebench {
namespace {

std::string named(const std::string& flag, const std::string& path) { return flag.empty() ? path : flag + " " + path; }

std::string reason(int err) { return std::strerror(err); }

// Writes all of `text`, retrying short writes and EINTR. Returns 0 or the errno of the failure.
int write_all(int fd, std::string_view text) {
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno;
    if (n == 0) return EIO;
    done += static_cast<std::size_t>(n);
  }
  return 0;
}

// Creates a new temporary file next to PATH (O_EXCL: never one another writer has open). Returns its fd.
int create_temporary(const std::string& flag, const std::string& path, std::string* tmp) {
  for (int attempt = 0;; ++attempt) {
    *tmp = path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(attempt);
    const int fd = ::open(tmp->c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd >= 0) return fd;
    if (errno != EEXIST || attempt >= 1000) {
      throw UsageError(named(flag, path) + ": cannot be written (" + reason(errno) + ")");
    }
  }
}

}  // namespace

std::string file_kind(unsigned mode) {
  if (S_ISREG(mode)) return "a regular file";
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISLNK(mode)) return "a symbolic link";
  return "not a regular file";
}

std::vector<std::string> list_folder_inputs(const std::string& flag, const std::string& folder,
                                            const std::function<bool(const std::string& name)>& wanted) {
  std::vector<std::string> files;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(folder, ec)) {
    const std::string name = e.path().filename().string();
    if (!wanted(name)) continue;
    const std::string path = e.path().string();
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode)) {
      files.push_back(path);
      continue;
    }
    struct stat lst {};
    const bool link = ::lstat(path.c_str(), &lst) == 0 && S_ISLNK(lst.st_mode);
    const std::string kind = ::stat(path.c_str(), &st) != 0
                                 ? (link ? "a symbolic link to nothing" : "not readable")
                                 : (link ? "a symbolic link to " : "") + file_kind(st.st_mode);
    std::fprintf(stderr, "pipebench: warning: %s: %s, skipped (a folder's inputs are its regular files)\n",
                 path.c_str(), kind.c_str());
  }
  if (ec) throw UsageError(flag + " " + folder + ": cannot be listed (" + ec.message() + ")");
  std::sort(files.begin(), files.end());
  return files;
}

void require_input_file(const std::string& flag, const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    const int err = errno;
    throw UsageError(named(flag, path) + ": cannot be read (" + (err == ENOENT ? "no such file" : reason(err)) + ")");
  }
  if (!S_ISREG(st.st_mode)) {
    throw UsageError(named(flag, path) + ": " + file_kind(st.st_mode) +
                     ", not a regular file (inputs are read from files only)");
  }
  if (::access(path.c_str(), R_OK) != 0)
    throw UsageError(named(flag, path) + ": cannot be read (" + reason(errno) + ")");
}

std::string read_input_file(const std::string& flag, const std::string& path) {
  // O_NONBLOCK: opening a FIFO without a writer returns at once instead of waiting; fstat then refuses it.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    const int err = errno;
    throw UsageError(named(flag, path) + ": cannot be read (" + (err == ENOENT ? "no such file" : reason(err)) + ")");
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    throw UsageError(named(flag, path) + ": " + file_kind(st.st_mode) +
                     ", not a regular file (inputs are read from files only)");
  }
  std::string text;
  text.reserve(static_cast<std::size_t>(st.st_size));
  char buf[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int err = errno;
      ::close(fd);
      throw UsageError(named(flag, path) + ": cannot be read (" + reason(err) + ")");
    }
    if (n == 0) break;
    text.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fd);
  return text;
}

void require_output_path(const std::string& flag, const std::string& path) {
  if (path.empty()) throw UsageError((flag.empty() ? std::string("output") : flag) + ": empty file name");
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return;  // a new file
    throw UsageError(named(flag, path) + ": cannot be written (" + reason(errno) + ")");
  }
  if (S_ISLNK(st.st_mode)) {
    throw UsageError(named(flag, path) + ": a symbolic link; outputs are not written through links (name the target)");
  }
  if (!S_ISREG(st.st_mode)) {
    throw UsageError(named(flag, path) + ": " + file_kind(st.st_mode) +
                     "; outputs are written only to a regular file or a new path");
  }
}

void require_output_in_folder(const std::string& flag, const std::string& path) {
  require_output_path(flag, path);
  const std::string::size_type slash = path.find_last_of('/');
  const std::string folder = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
  struct stat st {};
  if (::stat(folder.c_str(), &st) != 0) {
    const int err = errno;
    throw UsageError(named(flag, path) + ": cannot be written (folder " + folder + ": " +
                     (err == ENOENT ? "no such folder" : reason(err)) + ")");
  }
  if (!S_ISDIR(st.st_mode)) {
    throw UsageError(named(flag, path) + ": cannot be written (" + folder + " is " + file_kind(st.st_mode) + ")");
  }
  if (::access(folder.c_str(), W_OK | X_OK) != 0) {
    throw UsageError(named(flag, path) + ": cannot be written (folder " + folder + ": " + reason(errno) + ")");
  }
}

void make_output_folder(const std::string& flag, const std::string& folder) {
  if (folder.empty()) throw UsageError(flag + ": empty folder name");
  struct stat st {};
  if (::lstat(folder.c_str(), &st) == 0) {
    if (S_ISLNK(st.st_mode)) {
      const bool dangling = ::stat(folder.c_str(), &st) != 0;
      throw UsageError(named(flag, folder) + ": a symbolic link" + (dangling ? " to nothing" : "") +
                       "; outputs are not written through links (name the target)");
    }
    if (!S_ISDIR(st.st_mode)) throw UsageError(named(flag, folder) + ": " + file_kind(st.st_mode) + ", not a folder");
    return;
  }
  std::error_code ec;
  std::filesystem::create_directories(folder, ec);
  if (ec) throw UsageError(named(flag, folder) + ": cannot be made (" + ec.message() + ")");
}

void write_output_file(const std::string& flag, const std::string& path, std::string_view text) {
  write_output_file(flag, path, [text](const std::function<void(std::string_view)>& put) { put(text); });
}

std::int64_t write_output_file(const std::string& flag, const std::string& path, const TextPieces& produce) {
  require_output_path(flag, path);
  std::string tmp;
  const int fd = create_temporary(flag, path, &tmp);
  int err = 0;
  std::int64_t bytes = 0;
  try {
    produce([&](std::string_view piece) {
      if (err == 0) err = write_all(fd, piece);
      bytes += static_cast<std::int64_t>(piece.size());
    });
  } catch (...) {
    ::close(fd);
    ::unlink(tmp.c_str());
    throw;
  }
  if (::close(fd) != 0 && err == 0) err = errno;
  if (err != 0) {
    ::unlink(tmp.c_str());
    throw Error(named(flag, path) + ": write failed (" + reason(err) + "); the previous file is kept");
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    err = errno;
    ::unlink(tmp.c_str());
    throw Error(named(flag, path) + ": cannot replace it (" + reason(err) + ")");
  }
  return bytes;
}

RecordFile::RecordFile(std::string flag, std::string path, bool append)
    : flag_(std::move(flag)), path_(std::move(path)), lock_(flag_, path_) {
  // O_NOFOLLOW and the fstat below close the gap between the check and the open.
  struct stat before {};
  const bool existed = ::lstat(path_.c_str(), &before) == 0;  // a file made here is removed again when refused
  fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0666);
  if (fd_ < 0) throw UsageError(named(flag_, path_) + ": cannot be written (" + reason(errno) + ")");
  struct stat st {};
  if (::fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd_);
    fd_ = -1;
    throw UsageError(named(flag_, path_) + ": " + file_kind(st.st_mode) +
                     "; outputs are written only to a regular file or a new path");
  }
  // Appending: the lines this run writes follow the file's (size_bytes_ is the offset a failed line is cut to).
  const off_t end = append ? ::lseek(fd_, 0, SEEK_END) : 0;
  int err = end < 0 || (!append && ::ftruncate(fd_, 0) != 0) ? errno : 0;
  // A full disk is told now, as for the files written whole at the start, not at the first line after a
  // point was measured: a block past the end is reserved (the size kept) and released again. A file system
  // without fallocate is not probed.
  const off_t block = st.st_blksize > 0 ? st.st_blksize : 4096;
  if (err == 0 && ::fallocate(fd_, FALLOC_FL_KEEP_SIZE, end, block) != 0 && (errno == ENOSPC || errno == EDQUOT)) {
    err = errno;
  } else if (err == 0) {
    (void)::fallocate(fd_, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, end, block);
  }
  if (err != 0) {
    ::close(fd_);
    fd_ = -1;
    if (!existed) ::unlink(path_.c_str());
    throw UsageError(named(flag_, path_) + ": cannot be written (" + reason(err) + ")");
  }
  size_bytes_ = static_cast<std::int64_t>(end);
}

RecordFile::~RecordFile() {
  if (fd_ >= 0) ::close(fd_);
}

void RecordFile::append(std::string_view record) {
  const std::string n = std::to_string(records_ + 1);
  if (fd_ < 0) throw Error(named(flag_, path_) + ": cannot write line " + n + " (the file is closed)");
  const int err = write_all(fd_, record);
  if (err != 0) {
    // Cut a partial record so that the file holds whole records only; with O_APPEND unset the offset
    // must come back too.
    const bool cut = ::ftruncate(fd_, size_bytes_) == 0 && ::lseek(fd_, size_bytes_, SEEK_SET) == size_bytes_;
    throw Error(named(flag_, path_) + ": cannot write line " + n + " (" + reason(err) + "); the file keeps " +
                (cut ? "" : "at most ") + std::to_string(records_) + " whole line" + (records_ == 1 ? "" : "s"));
  }
  size_bytes_ += static_cast<std::int64_t>(record.size());
  ++records_;
}

void RecordFile::close() {
  if (fd_ < 0) return;
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) throw Error(named(flag_, path_) + ": close failed (" + reason(errno) + ")");
}

}  // namespace pipebench
