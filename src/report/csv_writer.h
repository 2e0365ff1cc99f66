// SPDX-License-Identifier: Apache-2.0
// CSV: one line per record, written as each record finishes. Every write is checked and a record lands
// whole or not at all: on a full disk the file keeps whole lines and the run stops with an Error.
#pragma once

#include <string>

#include "core/file_io.h"
#include "harness/sink.h"

namespace pipebench {

[[nodiscard]] std::string csv_header();
[[nodiscard]] std::string csv_line(const ResultRecord& r);

class CsvWriter final : public RecordSink {
 public:
  // Throws UsageError (a path that may not be written: device, FIFO, directory, link) or Error, naming
  // --csv and the file.
  explicit CsvWriter(const std::string& path);
  void add(const ResultRecord& r) override;  // throws Error naming the file and the line
  void finish() override;                    // checked close

 private:
  RecordFile out_;
};

}  // namespace pipebench
