// SPDX-License-Identifier: Apache-2.0
// Files the user names with a flag. Inputs are read only from regular files (a FIFO would block forever,
// a directory or device is never what was meant). Outputs are written only to a regular file or a new
// path: a device node, FIFO, directory or symbolic link named as an output is bad input and is left
// untouched (a link is refused rather than followed, so that `--json link` never writes somewhere the
// command line does not show; name the target itself). Every write and the close are checked.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "core/output_lock.h"

namespace pipebench {

// "a FIFO", "a directory", "a character device", ... for a stat mode (used in messages).
[[nodiscard]] std::string file_kind(unsigned mode);

// Throws UsageError "FLAG PATH: ..." unless PATH is a readable regular file (symbolic links to one are
// fine). Never opens a FIFO, so it cannot block.
void require_input_file(const std::string& flag, const std::string& path);

// The whole contents of a regular file; UsageError as above.
[[nodiscard]] std::string read_input_file(const std::string& flag, const std::string& path);

// The entries of FOLDER whose names `wanted` accepts and that are regular files (a symbolic link to one
// counts, as a file named on the command line does), sorted by name. Every other accepted name (a FIFO,
// device, folder, a link to one of those, a dangling link) is skipped and named on stderr, one line each
// ("pipebench: warning: F/rank2.json: a FIFO, skipped (..."), so that a folder's input is never left out
// silently. Throws UsageError "FLAG FOLDER: cannot be listed (...)".
[[nodiscard]] std::vector<std::string> list_folder_inputs(const std::string& flag, const std::string& folder,
                                                          const std::function<bool(const std::string& name)>& wanted);

// Throws UsageError "FLAG PATH: ..." unless PATH does not exist or is a regular file (not a link).
// FLAG may be empty (the message then starts with PATH).
void require_output_path(const std::string& flag, const std::string& path);

// require_output_path, and the folder PATH goes in exists and may be written: for an output written only
// at the end of a command, so that a typo in the folder is told before anything is measured.
void require_output_in_folder(const std::string& flag, const std::string& path);

// Makes FOLDER (with its parents) for a command's output files, or takes it where it is already a folder.
// Throws UsageError "FLAG FOLDER: ..." where FOLDER is a symbolic link (outputs are not written through
// links, as for files: name the target), exists and is not a folder, or cannot be made (a parent that is
// a regular file, a name too long, no permission).
void make_output_folder(const std::string& flag, const std::string& folder);

// Replaces PATH atomically: the text goes to a new temporary file next to it, every write and the
// close are checked, then rename(2). A failure leaves PATH as it was: UsageError for a path that may not
// be written (see require_output_path), Error naming the file and the reason otherwise. The rename is
// atomic against the process dying; there is no fsync (a power loss may lose the latest version).
void write_output_file(const std::string& flag, const std::string& path, std::string_view text);

// The same for a text too large to hold in memory: `produce` hands it over piece by piece, in order, to
// the function it is given. An exception from `produce` removes the temporary file, leaves PATH as it
// was and propagates. Returns the bytes written.
using TextPieces = std::function<void(const std::function<void(std::string_view)>& put)>;
std::int64_t write_output_file(const std::string& flag, const std::string& path, const TextPieces& produce);

// An output file written in whole lines (records): each append() lands completely or not at all (a short
// write is cut back to the end of the last whole line before the error is thrown), so a full disk leaves
// a file of whole lines. Opened with O_NOFOLLOW and checked to be a regular file; locked against a second
// writer for the object's life (core/output_lock.h).
class RecordFile {
 public:
  // Truncates, or with append keeps the file's lines and writes after them; throws UsageError / Error.
  RecordFile(std::string flag, std::string path, bool append = false);
  ~RecordFile();
  RecordFile(const RecordFile&) = delete;
  RecordFile& operator=(const RecordFile&) = delete;

  // Throws Error "FLAG PATH: cannot write line N (reason); the file keeps N-1 whole lines".
  void append(std::string_view line);
  // Checked close; throws Error. Further appends throw.
  void close();
  [[nodiscard]] std::int64_t records() const { return records_; }
  [[nodiscard]] std::int64_t size_bytes() const { return size_bytes_; }  // the file's, appended lines included

 private:
  std::string flag_, path_;
  OutputLock lock_;  // taken before the file is opened
  int fd_ = -1;
  std::int64_t records_ = 0, size_bytes_ = 0;
};

}  // namespace pipebench
