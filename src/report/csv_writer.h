// SPDX-License-Identifier: Apache-2.0
// CSV: one line per record, appended and flushed as each record finishes.
#pragma once

#include <fstream>
#include <string>

#include "report/sink.h"

namespace pipebench {

[[nodiscard]] std::string csv_header();
[[nodiscard]] std::string csv_line(const ResultRecord& r);

class CsvWriter final : public RecordSink {
 public:
  explicit CsvWriter(const std::string& path);  // throws Error naming the file
  void add(const ResultRecord& r) override;

 private:
  std::ofstream out_;
};

}  // namespace pipebench
