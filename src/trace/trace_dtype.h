// SPDX-License-Identifier: Apache-2.0
// Element types as profiles name them: PyTorch's scalar type names (Kineto "dtype", "Input type") and
// the type tokens inside NCCL kernel names. Named as pipebench names dtypes (core/dtype.h), so that a
// profile's collective compares with a plan's message; types pipebench does not bench keep a name too.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace pipebench {

struct TraceDType {
  std::string name;  // bfloat16, half, float, double, int8, uint8, int16, int32, int64, bool, float8_e4m3, ...
  int size_bytes = 0;
};

// "BFloat16", "Float", "Half", "c10::BFloat16", "float", "Long", ... (c10 ScalarType names, case as PyTorch
// prints them). nullopt for names it does not know.
[[nodiscard]] std::optional<TraceDType> dtype_from_torch(std::string_view name);

// NCCL kernel-name tokens: f32 f16 bf16 f64 i8 u8 i32 u32 i64 u64 f8e4m3 f8e5m2 (NCCL >= 2.19) and
// float half double int8_t uint8_t int32_t uint32_t int64_t uint64_t __nv_bfloat16 (older).
[[nodiscard]] std::optional<TraceDType> dtype_from_nccl_token(std::string_view token);

}  // namespace pipebench
