// SPDX-License-Identifier: Apache-2.0
// nccl-tests' text lines, character for character, so that the harnesses that read nccl-tests output (DCGM's
// nccl_tests plugin, cloudai, NVSentinel preflight, GCM) read pipebench's too. Formats from nccl-tests 2.19.6
// src/util.cu: writeDeviceReport (the device lines), writeResultHeader (the column header) and
// writeResultFooter (the footer); the average and its check from src/common.cu (run(), BenchTime).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "core/split_expr.h"
#include "harness/sink.h"
#include "io/results_io.h"

namespace pipebench {

// The nccl-tests version whose format these lines follow.
inline constexpr const char* kNcclTestsFormatVersion = "2.19.6";

// nccl-tests' bus id: "%04x:%02x:%02x" (domain, bus, device): "0000:18:00.0" loses its function number; a
// host rank (no bus id) is "host".
[[nodiscard]] std::string nccl_tests_bus_id(const std::string& bus_id);

// One "#  Rank  R Group  G Pid  P on HOST device  D [0000:18:00] NAME" line, with its newline. bus_id may be
// "0000:18:00.0" (the function number is dropped, as nccl-tests prints domain:bus:device) or empty (a host
// rank: printed as "[host]"). device is -1 for a host rank.
[[nodiscard]] std::string nccl_tests_device_line(int rank, int group, long pid, const std::string& host, int device,
                                                 const std::string& bus_id, const std::string& model);

// nccl-tests' NCCL_VERSION_CODE of the backend's "nccl" version: "2.28.3" is 22803 (nccl.h, NCCL >= 2.9); 0
// without NCCL.
[[nodiscard]] int nccl_version_code(const std::map<std::string, std::string>& versions);

// nccl-tests' Group of a rank: the --split colour of its process (0 without --split).
[[nodiscard]] int nccl_tests_group(const std::optional<SplitRule>& split, const SystemInfo& system, int rank);

// The device lines of every rank in the system block.
[[nodiscard]] std::string nccl_tests_device_lines(const std::optional<SplitRule>& split, const SystemInfo& system);

// The three column-header lines (the blank "#" above them not included), each with its newline and with
// nccl-tests' trailing spaces. cputime: -C names the column "cputime"; timestamps: -S adds its column.
[[nodiscard]] std::string nccl_tests_column_header(bool cputime, bool timestamps);

// "# Out of bounds values : N OK" or "... FAILED", with its newline.
[[nodiscard]] std::string nccl_tests_out_of_bounds_line(std::int64_t count);

// "# Avg bus bandwidth    : X " then "OK" or "FAILED" when a minimum is set, with its newline.
[[nodiscard]] std::string nccl_tests_avg_busbw_line(double avg_gbps, std::optional<double> min_gbps);

// nccl-tests' check of NCCL_TESTS_MIN_BW: the average fails below 0.9 x the minimum (common.cu, 10 % slack).
[[nodiscard]] bool below_min_busbw(double avg_gbps, std::optional<double> min_gbps);

// NCCL_TESTS_MIN_BW from the environment: unset or empty gives nullopt; a value that is not a finite
// number >= 0 throws UsageError naming the variable (nccl-tests' atof would read it as 0).
[[nodiscard]] std::optional<double> min_busbw_from_environment();

// What nccl-tests' footer sums over one test: every measured placement's busbw (the average is over
// sizes x types x reductions x placements, not reduced over ranks: common.cu bw[0] / bw_count[0]) and the
// number of failing checks (a process whose check found wrong values, per placement: CheckData).
class NcclTestsTotals {
 public:
  void add(double busbw_gbps, int out_of_bounds) {
    busbw_sum_gbps_ += busbw_gbps;
    ++count_;
    out_of_bounds_ += out_of_bounds;
  }
  void reset() { *this = NcclTestsTotals(); }
  // 0 before any placement (nccl-tests would print nan; nothing was measured).
  [[nodiscard]] double avg_busbw_gbps() const { return count_ ? busbw_sum_gbps_ / count_ : 0.0; }
  [[nodiscard]] std::int64_t out_of_bounds() const { return out_of_bounds_; }
  [[nodiscard]] int placements() const { return count_; }

 private:
  double busbw_sum_gbps_ = 0;
  int count_ = 0;
  std::int64_t out_of_bounds_ = 0;
};

// NCCL_TESTS_MIN_BW over a whole run: each op's average against the minimum (every sink sees every record,
// so the verdict does not depend on the table being printed).
class MinBusBwCheck final : public RecordSink {
 public:
  explicit MinBusBwCheck(std::optional<double> min_gbps) : min_gbps_(min_gbps) {}
  void add(const ResultRecord& r) override;
  void end_op() override;
  void finish() override { end_op(); }
  [[nodiscard]] bool failed() const { return failed_; }

 private:
  std::optional<double> min_gbps_;
  std::string op_;
  NcclTestsTotals totals_;
  bool failed_ = false;
};

}  // namespace pipebench
