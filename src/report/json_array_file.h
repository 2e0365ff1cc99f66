// SPDX-License-Identifier: Apache-2.0
// A JSON document with one growing array (a results file's "records", nccl-tests -J's "results") written
// so that it is valid JSON at every moment, holds every element added, and costs O(elements) bytes
// written in total and memory independent of the element count (an endless sweep, bench -N 0).
//
// How: the file is written whole (temporary file + rename(2)) with a reserve of spaces before the
// array's closing "]". An element is then one pwrite(2) of ",\n<element>" into that reserve: JSON allows
// whitespace there, so the file is valid before and after. The write never crosses a page boundary (the
// start moves to the next page, over spaces) and lands on bytes the file already has, so Linux copies it
// in one page step: a process killed at any moment (SIGKILL included) leaves the old or the new bytes,
// never half an element. When the reserve runs out, or an element is larger than a page, the file is
// written whole again with a reserve as large as its elements (so whole writes happen after exponentially
// growing counts: O(elements) bytes in total, not O(elements^2)). A final write (finish, the destructor)
// drops the reserve and lays the document out as nlohmann's dump(indent) would.
//
// Memory: the elements are not kept. A whole write copies them from the file it replaces (read back in
// pieces through the descriptor of the file last written), so only the shell and one element are held.
// The file is locked against a second writer (core/output_lock.h) for the object's life.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "core/output_lock.h"

namespace pipebench {

class JsonArrayFile {
 public:
  // The document with the array empty, laid out as dump(indent) (the array as "[]"), newline-terminated.
  using Shell = std::function<std::string()>;

  // key: the top-level key of the array; indent: the dump indent of the shell (1 or more). Locks PATH and
  // writes the file at once (no elements), so a bad path fails before anything is measured: UsageError
  // (device, FIFO, directory, link, another writer) or Error. flag names the output in messages ("" none).
  JsonArrayFile(std::string flag, std::string path, std::string key, int indent, Shell shell);
  // Writes the final layout unless finish() did and nothing changed since (errors are swallowed: the file
  // on disk is valid and holds every element).
  ~JsonArrayFile();
  JsonArrayFile(const JsonArrayFile&) = delete;
  JsonArrayFile& operator=(const JsonArrayFile&) = delete;

  // One element, as compact JSON text (dump(-1)).
  void append(const std::string& element);
  // Writes the file whole with the shell as it is now: final layout (no reserve) or with a reserve.
  void rewrite(bool final_layout);

  [[nodiscard]] std::int64_t bytes_written() const { return bytes_written_; }
  [[nodiscard]] int whole_writes() const { return whole_writes_; }
  [[nodiscard]] std::int64_t elements() const { return elements_; }
  [[nodiscard]] bool final_layout() const { return compact_; }

 private:
  // `element`: a new element's text, written after those copied from the file (with a reserve only).
  void write_whole(bool with_reserve, std::string_view element = {});
  // The elements' text of the file last written, in pieces (as it is there; `indented`: each element as
  // dump(indent) lays it out inside the document, with the separators). Returns the bytes given to put.
  std::int64_t copy_elements(const std::function<void(std::string_view)>& put, bool indented) const;
  void read_elements(const std::function<void(std::string_view)>& put) const;
  void reopen(std::int64_t size_bytes);
  [[nodiscard]] bool append_in_place(const std::string& chunk);
  void close_fd();
  [[nodiscard]] std::string named() const { return flag_.empty() ? path_ : flag_ + " " + path_; }

  std::string flag_, path_, key_;
  int indent_;
  Shell shell_;
  OutputLock lock_;                  // taken before the first write
  int fd_ = -1;                      // the file as last written whole (appends in place, elements read back)
  std::int64_t elements_begin_ = 0;  // file offset of the first element's text (after the array's "[")
  std::int64_t next_at_ = 0;         // file offset where the elements' text ends (the next element goes)
  std::int64_t reserve_end_ = 0;     // file offset of the spaces' end (== next_at_ without a reserve)
  std::int64_t elements_ = 0;
  std::int64_t bytes_written_ = 0;
  int whole_writes_ = 0;
  bool compact_ = false;  // the file is in its final layout (no reserve)
};

}  // namespace pipebench
