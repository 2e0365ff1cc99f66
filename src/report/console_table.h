// SPDX-License-Identifier: Apache-2.0
// The console table in nccl-tests' column layout (size, count, type, redop, root, then time, algbw,
// busbw and #wrong for out-of-place and in-place), so rows compare 1:1 with nccl-tests output.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <ostream>
#include <string>

#include "report/sink.h"

namespace pipebench {

// nccl-tests' getFloatStr: fixed width, fewer decimals as the value grows, then exponent form.
[[nodiscard]] std::string format_fixed_width(double value, int width);

class ConsoleTable final : public RecordSink {
 public:
  explicit ConsoleTable(std::ostream& out) : out_(out) {}
  void add(const ResultRecord& r) override;
  void end_op() override;
  void finish() override { end_op(); }

 private:
  void header(const std::string& op);
  void row(const ResultRecord& oop, const ResultRecord* inplace);

  std::ostream& out_;
  std::string op_;
  std::optional<ResultRecord> pending_;  // out-of-place half of a row waiting for its in-place half
  std::int64_t wrong_ = 0;
  double peak_busbw_gbps_ = 0;
  std::uint64_t peak_size_ = 0;
  bool peak_in_place_ = false;
  int errors_ = 0;
};

}  // namespace pipebench
