// SPDX-License-Identifier: Apache-2.0
// NcclTestsJsonWriter (-J FILE): nccl-tests' own JSON (version 3, the layout and field names of nccl-tests
// 2.19.6 src/util.cu: jsonOutputInit, writeDeviceReport, writeBenchmarkLine*, writeResultFooter,
// writeErrors), so that tools reading nccl-tests -J read pipebench's, and `pipebench import` reads it back.
// nccl-tests' quirks are kept where readers rely on them (booleans as "true"/"false" strings, root as the
// "%6i" text); unlike nccl-tests, "env" holds only the allow-listed launch environment (never secrets),
// "devices" lists every rank, and the file is valid JSON at every moment (a run that dies leaves a whole
// document without its footer, with every row whose placements were all measured) rather than cut short.
// The rows stream into the file (report/json_array_file.h): memory and the cost of a row do not grow with
// the run (bench -N 0), and a second run naming the same file is refused. "errors" keeps the first
// kErrorsKept messages and then says how many more there were. One op per file, as nccl-tests has.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "harness/sink.h"
#include "report/json_array_file.h"
#include "report/nccl_tests_text.h"

namespace pipebench {

class NcclTestsJsonWriter final : public RecordSink {
 public:
  static constexpr std::size_t kErrorsKept = 1000;

  // head: version, start_time, args, env, nccl_version and config, in nccl-tests' order. Checks PATH may
  // be written and writes the file (throws UsageError).
  NcclTestsJsonWriter(std::string path, nlohmann::ordered_json head, std::optional<double> min_busbw_gbps);
  void add(const ResultRecord& r) override;
  void finish() override;

  // The rows written so far, and what the file cost (the unit tests bound these).
  [[nodiscard]] std::int64_t rows() const { return file_.elements(); }
  [[nodiscard]] std::int64_t bytes_written() const { return file_.bytes_written(); }

 private:
  // The document without its rows ("results" empty), with the footer once finished, as dump(1).
  [[nodiscard]] std::string shell() const;
  void add_footer(nlohmann::ordered_json& doc) const;
  void close_row();

  nlohmann::ordered_json head_;
  std::optional<double> min_busbw_gbps_;
  std::optional<nlohmann::ordered_json> row_;  // an out-of-place half waiting for its in-place half
  NcclTestsTotals totals_;
  std::vector<std::string> errors_;  // the first kErrorsKept
  std::int64_t errors_left_out_ = 0;
  bool finished_ = false;
  std::string end_time_;
  JsonArrayFile file_;  // last: its shell reads the members above
};

// nccl-tests' time stamp: local time "YYYY-MM-DD HH:MM:SS" (util.cu formatNow).
[[nodiscard]] std::string nccl_tests_time_now();

}  // namespace pipebench
