// SPDX-License-Identifier: Apache-2.0
// NcclTestsJsonWriter (-J FILE): nccl-tests' own JSON (version 3, the layout and field names of nccl-tests
// 2.19.6 src/util.cu: jsonOutputInit, writeDeviceReport, writeBenchmarkLine*, writeResultFooter,
// writeErrors), so that tools reading nccl-tests -J read pipebench's, and `pipebench import` reads it back.
// nccl-tests' quirks are kept where readers rely on them (booleans as "true"/"false" strings, root as the
// "%6i" text); unlike nccl-tests, "env" holds only the allow-listed launch environment (never secrets),
// "devices" lists every rank, and the file is replaced atomically after every row (a run that dies leaves
// a whole document without its footer) rather than left cut short. One op per file, as nccl-tests has.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "harness/sink.h"
#include "report/nccl_tests_text.h"

namespace pipebench {

class NcclTestsJsonWriter final : public RecordSink {
 public:
  // head: version, start_time, args, env, nccl_version and config, in nccl-tests' order. Checks PATH may
  // be written (throws UsageError).
  NcclTestsJsonWriter(std::string path, nlohmann::ordered_json head, std::optional<double> min_busbw_gbps);
  void add(const ResultRecord& r) override;
  void finish() override;

  // The document so far (with the footer once finished).
  [[nodiscard]] nlohmann::ordered_json document() const;

 private:
  void write() const;
  void close_row();

  std::string path_;
  nlohmann::ordered_json head_;
  std::optional<double> min_busbw_gbps_;
  nlohmann::ordered_json results_ = nlohmann::ordered_json::array();
  std::optional<nlohmann::ordered_json> row_;  // an out-of-place half waiting for its in-place half
  NcclTestsTotals totals_;
  std::vector<std::string> errors_;
  bool finished_ = false;
  std::string end_time_;
};

// nccl-tests' time stamp: local time "YYYY-MM-DD HH:MM:SS" (util.cu formatNow).
[[nodiscard]] std::string nccl_tests_time_now();

}  // namespace pipebench
