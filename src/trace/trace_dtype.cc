// SPDX-License-Identifier: Apache-2.0
// Profile dtype names -> pipebench dtype names and sizes.
#include "trace/trace_dtype.h"

#include <array>

namespace pipebench {
namespace {

struct Entry {
  std::string_view from, to;
  int size;
};

// c10/core/ScalarType.h names (what Kineto writes as "dtype"), plus the C++ spellings that
// record_shapes writes as "Input type".
constexpr std::array<Entry, 26> kTorch = {{
    {"Float", "float", 4},
    {"float", "float", 4},
    {"BFloat16", "bfloat16", 2},
    {"c10::BFloat16", "bfloat16", 2},
    {"Half", "half", 2},
    {"c10::Half", "half", 2},
    {"Double", "double", 8},
    {"double", "double", 8},
    {"Char", "int8", 1},
    {"signed char", "int8", 1},
    {"Byte", "uint8", 1},
    {"unsigned char", "uint8", 1},
    {"Short", "int16", 2},
    {"short int", "int16", 2},
    {"Int", "int32", 4},
    {"int", "int32", 4},
    {"Long", "int64", 8},
    {"long int", "int64", 8},
    {"Bool", "bool", 1},
    {"bool", "bool", 1},
    {"Float8_e4m3fn", "float8_e4m3", 1},
    {"Float8_e5m2", "float8_e5m2", 1},
    {"Float8_e4m3fnuz", "float8_e4m3", 1},
    {"Float8_e5m2fnuz", "float8_e5m2", 1},
    {"ComplexFloat", "complex64", 8},
    {"ComplexDouble", "complex128", 16},
}};

// NCCL's src/device/generate.py type tokens (2.19+) and the older C type names of ncclKernel_*.
constexpr std::array<Entry, 22> kNccl = {{
    {"i8", "int8", 1},
    {"u8", "uint8", 1},
    {"i32", "int32", 4},
    {"u32", "uint32", 4},
    {"i64", "int64", 8},
    {"u64", "uint64", 8},
    {"f16", "half", 2},
    {"f32", "float", 4},
    {"f64", "double", 8},
    {"bf16", "bfloat16", 2},
    {"f8e4m3", "float8_e4m3", 1},
    {"f8e5m2", "float8_e5m2", 1},
    {"int8_t", "int8", 1},
    {"uint8_t", "uint8", 1},
    {"int32_t", "int32", 4},
    {"uint32_t", "uint32", 4},
    {"int64_t", "int64", 8},
    {"uint64_t", "uint64", 8},
    {"half", "half", 2},
    {"float", "float", 4},
    {"double", "double", 8},
    {"__nv_bfloat16", "bfloat16", 2},
}};

template <std::size_t N>
std::optional<TraceDType> find(const std::array<Entry, N>& table, std::string_view name) {
  for (const auto& e : table) {
    if (e.from == name) return TraceDType{std::string(e.to), e.size};
  }
  return std::nullopt;
}

}  // namespace

std::optional<TraceDType> dtype_from_torch(std::string_view name) { return find(kTorch, name); }

std::optional<TraceDType> dtype_from_nccl_token(std::string_view token) { return find(kNccl, token); }

}  // namespace pipebench
