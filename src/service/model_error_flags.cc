// SPDX-License-Identifier: Apache-2.0
// ModelError to the line predict and replay print.
#include "service/model_error_flags.h"

namespace pipebench {

UsageError with_flags(const ModelError& e, const std::string& table_path, const std::string& schedule) {
  switch (e.input()) {
    case ModelError::Input::kNegativeCompute:
      return UsageError("--fwd-ms-per-layer/--bwd-ms-per-layer/--tflops/--optimizer-ms/--comm-sm-slowdown: " +
                        e.detail());
    case ModelError::Input::kNoComputeTime:
      return UsageError("compute time: give --fwd-ms-per-layer MS (> 0) or --tflops T (achieved TFLOP/s per GPU)");
    case ModelError::Input::kNoMeasuredRecord:
      return UsageError("--table " + table_path + ": " + e.detail());
    case ModelError::Input::kNoMeasurement:
      return UsageError("--table " + table_path + ": " + e.detail() +
                        " (run pipebench bench --plan with this plan on these ranks" +
                        (e.class_fallback() ? "" : ", or allow --class-fallback") + ")");
    case ModelError::Input::kUnknownSchedule:
      return UsageError("--schedule " + schedule + ": " + e.detail());
  }
  return UsageError(e.what());
}

}  // namespace pipebench
