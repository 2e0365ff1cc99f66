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
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "core/file_io.h"
#include "report/sink.h"

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

 private:
  void write_whole(bool with_reserve);
  [[nodiscard]] bool append_in_place(const std::string& chunk);
  void close_fd();

  std::string path_;
  nlohmann::json doc_;
  std::string head_, tail_;       // the file's text before the records' "[" and after their "]"
  std::string records_text_;      // the records as the in-progress file holds them
  int fd_ = -1;                   // the file as last written whole (for the in-place appends)
  std::int64_t next_at_ = 0;      // file offset where the next record goes
  std::int64_t reserve_end_ = 0;  // file offset of the closing "]"
  std::int64_t bytes_written_ = 0;
  int whole_writes_ = 0;
  bool compact_ = false;  // the file is as finish() left it (no reserve, no fd)
};

}  // namespace pipebench
