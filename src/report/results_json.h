// SPDX-License-Identifier: Apache-2.0
// The results file sink: records as io/results_io.h writes them (pipebench.results/1), valid JSON at
// every moment and every finished record in it, in O(records) bytes written in total and memory
// independent of the record count (an endless sweep, bench -N 0): report/json_array_file.h, whose final
// layout is dump(2).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "harness/sink.h"
#include "io/results_io.h"
#include "report/json_array_file.h"

namespace pipebench {

class ResultsJson final : public RecordSink {
 public:
  // Writes the file at once (with no records), so a bad path fails before anything is measured.
  ResultsJson(std::string path, const ResultsHeader& header);
  ResultsJson(const ResultsJson&) = delete;
  ResultsJson& operator=(const ResultsJson&) = delete;

  void add(const ResultRecord& r) override;
  // Writes the file whole, without the reserve. Further add()s append again.
  void finish() override;
  // Replaces every field but the records (the links at the end of the run) and writes the file whole.
  void set_header(const ResultsHeader& header);

  // What the file cost so far (the unit tests bound these).
  [[nodiscard]] std::int64_t bytes_written() const { return file_.bytes_written(); }
  [[nodiscard]] int whole_writes() const { return file_.whole_writes(); }
  [[nodiscard]] std::int64_t records() const { return file_.elements(); }

 private:
  nlohmann::json doc_;  // every field but the records ("records" stays an empty array)
  JsonArrayFile file_;  // last: its shell reads doc_
};

}  // namespace pipebench
