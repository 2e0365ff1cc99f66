// SPDX-License-Identifier: Apache-2.0
// A model input the simulator cannot use. The simulator does not know the command line: it says which
// input is wrong, and the command (src/service/model_error_flags.h) names the flag. It stays a UsageError
// (bad input, exit status 2) for a caller that shows it as it is.
#pragma once

#include <string>
#include <utility>

#include "core/error.h"

namespace pipebench {

class ModelError : public UsageError {
 public:
  enum class Input {
    kNegativeCompute,   // a compute time, rate or slowdown below zero
    kNoComputeTime,     // neither a forward time per layer nor a FLOP rate
    kNoMeasuredRecord,  // a measured table with no usable record
    kNoMeasurement,     // a measured table without the (op, ranks) a transfer needs
    kUnknownSchedule,   // a schedule filter matching none of the plan's schedules
  };

  // message: the whole line without flag names; detail: what follows the flag in the command's line.
  ModelError(Input input, const std::string& message, std::string detail, bool class_fallback = false)
      : UsageError(message), input_(input), detail_(std::move(detail)), class_fallback_(class_fallback) {}

  [[nodiscard]] Input input() const { return input_; }
  [[nodiscard]] const std::string& detail() const { return detail_; }
  // kNoMeasurement: whether the cost model already fell back to records of the same link class.
  [[nodiscard]] bool class_fallback() const { return class_fallback_; }

 private:
  Input input_;
  std::string detail_;
  bool class_fallback_;
};

}  // namespace pipebench
