// SPDX-License-Identifier: Apache-2.0
// The console table in nccl-tests' column layout (size, count, type, redop, root, then time, algbw,
// busbw and #wrong for out-of-place and in-place), so rows compare 1:1 with nccl-tests output.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>

#include "harness/sink.h"
#include "report/nccl_tests_text.h"

namespace pipebench {

// nccl-tests' getFloatStr: fixed width, fewer decimals as the value grows, then exponent form.
[[nodiscard]] std::string format_fixed_width(double value, int width);

// How the table opens and closes.
struct ConsoleStyle {
  // An nccl-tests binary name (all_reduce_perf): nccl-tests' own lines only, its name in the footer. Empty:
  // pipebench's table, which opens with "# Collective test starting: OP" and adds the peak line.
  std::string program;
  std::optional<double> min_busbw_gbps;  // NCCL_TESTS_MIN_BW: the average line says OK or FAILED
  bool cputime = false;                  // -C: the time columns are named cputime
  bool timestamps = false;               // -S: the header names the timestamp column
};

// Prints nccl-tests' table per op: the column header, one row per size (under --split the row over all
// groups), and the footer: "# Out of bounds values", "# Avg bus bandwidth" (nccl-tests 2.19 text), then
// pipebench's peak line and, where the ranks' link is known, the peak as a share of the link, the link
// class's published band and the points at >= 1 GiB below it (topology/link_band.h).
class ConsoleTable final : public RecordSink {
 public:
  explicit ConsoleTable(std::ostream& out, ConsoleStyle style = {}) : out_(out), style_(std::move(style)) {}
  void add(const ResultRecord& r) override;
  void end_op() override;
  void finish() override { end_op(); }

 private:
  void header(const std::string& op);
  void row(const ResultRecord& oop, const ResultRecord* inplace);
  void track(const ResultRecord& r);
  void link_lines();

  std::ostream& out_;
  ConsoleStyle style_;
  NcclTestsTotals totals_;
  std::string op_;
  std::optional<ResultRecord> pending_;  // out-of-place half of a row waiting for its in-place half
  double peak_busbw_gbps_ = 0;
  std::uint64_t peak_size_ = 0;
  bool peak_in_place_ = false;
  std::string peak_link_class_;
  std::optional<double> peak_link_gbps_;
  int below_band_ = 0;  // points at >= 1 GiB below their link class's band
  std::optional<ResultRecord> worst_below_;
  int errors_ = 0;
};

}  // namespace pipebench
