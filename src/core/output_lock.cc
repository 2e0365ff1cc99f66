// SPDX-License-Identifier: Apache-2.0
// flock(2) on ".NAME.lock"; the lock follows the open file, so a crashed writer leaves no lock behind.
#include "core/output_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "core/error.h"
#include "core/file_io.h"

namespace pipebench {
namespace {

std::string named(const std::string& flag, const std::string& path) { return flag.empty() ? path : flag + " " + path; }

// Written after the process id by an OutputLockSet's lock: the process's writers of that output are its.
constexpr const char* kSetMark = " set";

// What a holder wrote into the lock file: "PID" or "PID set" ("" when unreadable).
std::string holder_text(int fd) {
  char buf[32] = {};
  const ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
  if (n <= 0) return "";
  std::string text(buf, static_cast<std::size_t>(n));
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text;
}

// The process id a holder wrote into the lock file ("" when unreadable).
std::string holder_of(int fd) {
  std::string pid = holder_text(fd);
  if (pid.size() > std::strlen(kSetMark) &&
      pid.compare(pid.size() - std::strlen(kSetMark), std::string::npos, kSetMark) == 0)
    pid.resize(pid.size() - std::strlen(kSetMark));
  return pid.find_first_not_of("0123456789") == std::string::npos ? pid : "";
}

// Marks a lock file this process holds (it holds our process id) as an OutputLockSet's: "PID set". The
// lock stays with the descriptor that took it; this one only writes. Returns the errno of a failed write.
int mark_as_set(const std::string& lock_path) {
  const int fd = ::open(lock_path.c_str(), O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return 0;  // no lock was taken (no folder to hold the file): nothing to mark
  const std::string pid = std::to_string(::getpid());
  const std::string holder = holder_text(fd);
  int err = 0;
  // Empty: the lock's own write of the process id failed (a full disk), or a file system without flock
  // took no lock (then the mark is harmless).
  if (holder == pid || holder.empty()) {
    const std::string text = pid + kSetMark + "\n";
    if (::pwrite(fd, text.data(), text.size(), 0) < 0) err = errno;
  }
  ::close(fd);
  return err;
}

}  // namespace

std::string OutputLock::lock_path(const std::string& path) {
  std::string p = path;
  while (p.size() > 1 && p.back() == '/') p.pop_back();
  const std::string::size_type slash = p.find_last_of('/');
  if (slash == std::string::npos) return "." + p + ".lock";
  return p.substr(0, slash + 1) + "." + p.substr(slash + 1) + ".lock";
}

OutputLock::OutputLock(const std::string& flag, const std::string& path) : lock_path_(lock_path(path)) {
  require_output_path(flag, path);  // a link, FIFO or device named as the output: refused before a lock file is made
  // A lock file unlinked by its last holder between our open and our flock is no lock: open it again.
  for (int attempt = 0; attempt < 100; ++attempt) {
    const int fd = ::open(lock_path_.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0666);
    if (fd < 0) {
      if (errno == EISDIR) {
        throw UsageError(named(flag, path) + ": its lock file " + lock_path_ + " is a directory (remove it)");
      }
      if (errno == ELOOP) {
        throw UsageError(named(flag, path) + ": its lock file " + lock_path_ +
                         " is a symbolic link; outputs are not written through links (remove it)");
      }
      return;  // no folder, or one that may not be written: the output's own write says so
    }
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
      ::close(fd);
      throw UsageError(named(flag, path) + ": its lock file " + lock_path_ + " is not a regular file (remove it)");
    }
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      const int err = errno;
      const std::string pid = holder_of(fd);
      const bool own_set = holder_text(fd) == std::to_string(::getpid()) + kSetMark;
      ::close(fd);
      if (err == EWOULDBLOCK && own_set) return;  // held by this process's OutputLockSet: the lock is the set's
      if (err == EWOULDBLOCK) {
        throw UsageError(named(flag, path) + ": being written by another pipebench (" +
                         (pid.empty() ? std::string("its lock file ") : "process " + pid + ", lock file ") +
                         lock_path_ + "); name another output or wait until it ends");
      }
      return;  // a file system without flock: no lock, as without a folder to write
    }
    struct stat now {};
    if (::stat(lock_path_.c_str(), &now) == 0 && now.st_dev == st.st_dev && now.st_ino == st.st_ino) {
      const std::string pid = std::to_string(::getpid()) + "\n";
      if (::ftruncate(fd, 0) != 0 || ::pwrite(fd, pid.data(), pid.size(), 0) < 0) {
        // The process id only makes the other run's message clearer; the lock holds without it.
      }
      fd_ = fd;
      return;
    }
    ::close(fd);
  }
}

OutputLockSet::OutputLockSet(std::vector<FileArg> outputs) {
  std::sort(outputs.begin(), outputs.end(), [](const FileArg& a, const FileArg& b) {
    return OutputLock::lock_path(a.path) < OutputLock::lock_path(b.path);
  });
  for (const auto& f : outputs) {
    if (f.path.empty()) continue;
    auto lock = std::make_unique<OutputLock>(f.flag, f.path);
    // Unmarked, the set's own writers would be refused as another run's: a lock file that cannot be written
    // (a full disk) is said as such, before any output is created.
    if (const int err = mark_as_set(OutputLock::lock_path(f.path)); err != 0) {
      throw UsageError(named(f.flag, f.path) + ": cannot be written (" + std::strerror(err) +
                       ", writing its lock file " + OutputLock::lock_path(f.path) + ")");
    }
    locks_.push_back(std::move(lock));
  }
}

OutputLock::~OutputLock() {
  if (fd_ < 0) return;
  // While still holding it (a waiting opener then sees another inode and retries); only when it still
  // holds our process id: a lock file named as another output of the run holds that output now.
  if (holder_of(fd_) == std::to_string(::getpid())) ::unlink(lock_path_.c_str());
  ::close(fd_);
}

}  // namespace pipebench
