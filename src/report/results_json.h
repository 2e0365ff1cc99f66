// SPDX-License-Identifier: Apache-2.0
// The results file sink: records as io/results_io.h writes them (pipebench.results/1), valid JSON at
// every moment and every finished record in it, in O(records) bytes written in total.
//
// How: the file is written whole (temporary file + rename(2)) with a reserve of spaces before the
// closing "]" of "records". A record is then one pwrite(2) of ",\n<record>" into that reserve: JSON allows
// whitespace there, so the file is valid before and after. The write never crosses a page boundary (the
// start moves to the next page, over spaces) and lands on bytes the file already has, so Linux copies it
// in one page step: a process killed at any moment (SIGKILL included) leaves the old or the new bytes,
// never half a record. When the reserve runs out, or a record is larger than a page, the file is written
// whole again with a reserve as large as its records (so whole writes happen after exponentially growing
// counts: O(records) bytes in total, not O(records^2)). finish() (and the destructor) write it whole one
// last time without the reserve, laid out as before (dump(2)).
//
// Memory: the records are not kept. A whole write copies them from the file it replaces (read back in
// pieces through the descriptor of the file last written), so an endless sweep (bench -N 0) holds the
// header and one record at a time, however many records the file has.
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "core/file_io.h"
#include "harness/sink.h"

namespace pipebench {

// Writes `text` to path atomically (a temporary file, then rename), only to a regular file or a new path:
// core/file_io.h's write_output_file. Throws UsageError (device, FIFO, directory, link) or Error.
void write_file_atomically(const std::string& path, const std::string& text);

class ResultsJson final : public RecordSink {
 public:
  // header: tool_version, created_utc, system, config, ...; "records" is added here.
  // Writes the file at once (with no records), so a bad path fails before anything is measured.
  ResultsJson(std::string path, nlohmann::json header);
  ~ResultsJson() override;
  ResultsJson(const ResultsJson&) = delete;
  ResultsJson& operator=(const ResultsJson&) = delete;

  void add(const ResultRecord& r) override;
  // Writes the file whole, without the reserve. Further add()s append again.
  void finish() override;
  // Sets a top-level field (e.g. the link state seen during the run) and writes the file whole.
  void set_field(const std::string& key, nlohmann::json value);

  // What the file cost so far (the unit tests bound these).
  [[nodiscard]] std::int64_t bytes_written() const { return bytes_written_; }
  [[nodiscard]] int whole_writes() const { return whole_writes_; }
  [[nodiscard]] std::int64_t records() const { return records_; }

 private:
  // `record`: a new record's text, written after the records copied from the file (with a reserve only).
  void write_whole(bool with_reserve, std::string_view record = {});
  // The records' text of the file last written, in pieces (as it is there; `indented`: each record as
  // dump(2) lays it out inside the document, with the separators). Returns the bytes given to put.
  std::int64_t copy_records(const std::function<void(std::string_view)>& put, bool indented) const;
  void read_records(const std::function<void(std::string_view)>& put) const;
  void reopen(std::int64_t size_bytes);
  [[nodiscard]] bool append_in_place(const std::string& chunk);
  void close_fd();

  std::string path_;
  nlohmann::json doc_;              // every field but the records ("records" stays an empty array)
  int fd_ = -1;                     // the file as last written whole (appends in place, records read back)
  std::int64_t records_begin_ = 0;  // file offset of the first record's text (after the records' "[")
  std::int64_t next_at_ = 0;        // file offset where the records' text ends (the next record goes)
  std::int64_t reserve_end_ = 0;    // file offset of the spaces' end (== next_at_ without a reserve)
  std::int64_t records_ = 0;
  std::int64_t bytes_written_ = 0;
  int whole_writes_ = 0;
  bool compact_ = false;  // the file is as finish() left it (no reserve)
};

}  // namespace pipebench
