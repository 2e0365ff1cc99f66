// SPDX-License-Identifier: Apache-2.0
// Element types and reduction operations, named as nccl-tests names them (-d, -o).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace pipebench {

// Values are stable: they cross into CUDA kernels and MPI user ops by number.
enum class DType : int {
  kInt8 = 0,
  kUint8,
  kInt32,
  kUint32,
  kInt64,
  kUint64,
  kHalf,
  kFloat,
  kDouble,
  kBfloat16,
};

enum class RedOp : int { kNone = 0, kSum, kProd, kMax, kMin };

[[nodiscard]] std::string_view dtype_name(DType t);
[[nodiscard]] std::size_t dtype_size(DType t);
[[nodiscard]] std::string_view redop_name(RedOp op);
[[nodiscard]] const std::vector<DType>& all_dtypes();

// Accepts nccl-tests' names and common aliases (fp16, bf16, float32, ...). Throws UsageError naming flag.
[[nodiscard]] DType parse_dtype(std::string_view flag, std::string_view text);
// sum, prod, max, min. Throws UsageError naming flag.
[[nodiscard]] RedOp parse_redop(std::string_view flag, std::string_view text);

// The largest integer L such that every integer in [0, L] is exactly representable in t and integer
// sums up to L neither round nor overflow. The data check keeps every partial result below it, which
// makes reductions exact in any order (the idea of nccl-tests' verifiable/).
[[nodiscard]] double exact_integer_limit(DType t);

}  // namespace pipebench
