// SPDX-License-Identifier: Apache-2.0
// Names, sizes and exactness limits of element types and reduction operations.
#include "core/dtype.h"

#include <algorithm>
#include <cctype>
#include <string>

#include "core/error.h"
#include "core/text.h"

namespace pipebench {
namespace {

struct DTypeInfo {
  DType type;
  std::string_view name;
  std::size_t size;
  double exact_limit;
  std::vector<std::string_view> aliases;
};

const std::vector<DTypeInfo>& table() {
  // exact_limit: int8 127, uint8 255; half has an 11-bit significand (2^11), bfloat16 8 bits (2^8),
  // float 24 bits, double 53 bits (IEEE 754 binary16/binary32/binary64, bfloat16 = binary32's top half).
  static const std::vector<DTypeInfo> kTable = {
      {DType::kInt8, "int8", 1, 127, {"char"}},
      {DType::kUint8, "uint8", 1, 255, {}},
      {DType::kInt32, "int32", 4, 2147483647.0, {"int"}},
      {DType::kUint32, "uint32", 4, 4294967295.0, {}},
      {DType::kInt64, "int64", 8, 9007199254740992.0, {}},
      {DType::kUint64, "uint64", 8, 9007199254740992.0, {}},
      {DType::kHalf, "half", 2, 2048, {"float16", "fp16"}},
      {DType::kFloat, "float", 4, 16777216.0, {"float32", "fp32"}},
      {DType::kDouble, "double", 8, 9007199254740992.0, {"float64", "fp64"}},
      {DType::kBfloat16, "bfloat16", 2, 256, {"bf16"}},
  };
  return kTable;
}

const DTypeInfo& info(DType t) { return table().at(static_cast<std::size_t>(t)); }

}  // namespace

std::string_view dtype_name(DType t) { return info(t).name; }
std::size_t dtype_size(DType t) { return info(t).size; }
double exact_integer_limit(DType t) { return info(t).exact_limit; }

const std::vector<DType>& all_dtypes() {
  static const std::vector<DType> kAll = [] {
    std::vector<DType> v;
    for (const auto& i : table()) v.push_back(i.type);
    return v;
  }();
  return kAll;
}

DType parse_dtype(std::string_view flag, std::string_view text) {
  const std::string t = lower(text);
  std::string names;
  for (const auto& i : table()) {
    if (t == i.name) return i.type;
    if (std::find(i.aliases.begin(), i.aliases.end(), t) != i.aliases.end()) return i.type;
    names += (names.empty() ? "" : ", ") + std::string(i.name);
  }
  throw UsageError(std::string(flag) + ": unknown data type '" + std::string(text) + "' (one of: " + names + ")");
}

std::string_view redop_name(RedOp op) {
  static constexpr std::string_view kNames[] = {"none", "sum", "prod", "max", "min"};  // in RedOp's order
  return kNames[static_cast<int>(op)];
}

RedOp parse_redop(std::string_view flag, std::string_view text) {
  const std::string t = lower(text);
  for (RedOp op : {RedOp::kSum, RedOp::kProd, RedOp::kMax, RedOp::kMin}) {
    if (t == redop_name(op)) return op;
  }
  throw UsageError(std::string(flag) + ": unknown reduction '" + std::string(text) + "' (one of: sum, prod, max, min)");
}

}  // namespace pipebench
