// SPDX-License-Identifier: Apache-2.0
// One writer per output file. An output written over the length of a run (bench's --json, --csv, -J,
// --jsonl) by two runs at once would keep one run's records only, and both would end with status 0:
// each replaces the file the other writes. While it writes, a run holds an advisory lock (flock(2)) on a
// lock file next to the output, ".NAME.lock" (it holds the writer's process id), and a second run that
// names the same output is refused before it writes anything. The lock file is removed when the writer
// ends; one left by a killed writer holds no lock (the kernel drops it with the process) and is reused.
// A command with several outputs locks them all (OutputLockSet) before it creates the first, so that a
// run refused on one of them has written none.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/distinct_files.h"

namespace pipebench {

class OutputLock {
 public:
  // Checks PATH may be an output first (core/file_io.h require_output_path). Throws UsageError "FLAG PATH: being
  // written by another pipebench (process N); ..." when another process holds the lock, or when the lock file is not a
  // regular file (a link, FIFO, ...). A lock this process's OutputLockSet holds (its lock file says so) is the
  // writer's: no second lock is taken and the set's stays; any other lock held is refused, also one of this process.
  // Where no lock file can be made (no folder, a read-only folder) no lock is held: the output's own write then fails
  // and names the reason. FLAG may be empty.
  OutputLock(const std::string& flag, const std::string& path);
  ~OutputLock();
  OutputLock(const OutputLock&) = delete;
  OutputLock& operator=(const OutputLock&) = delete;

  // ".NAME.lock" in PATH's folder.
  [[nodiscard]] static std::string lock_path(const std::string& path);

 private:
  std::string lock_path_;
  int fd_ = -1;
};

// The locks of every output of one command, taken before any output is created or truncated and held
// for the object's life. They are taken in the order of their lock files' paths, so that of two runs
// naming the same outputs one always gets them all (in the order of the flags, each could hold one and
// both be refused). Throws OutputLock's UsageError for the first output that cannot be locked, holding
// none then. Empty paths are skipped.
class OutputLockSet {
 public:
  explicit OutputLockSet(std::vector<FileArg> outputs);

 private:
  std::vector<std::unique_ptr<OutputLock>> locks_;
};

}  // namespace pipebench
