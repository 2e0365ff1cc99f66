// SPDX-License-Identifier: Apache-2.0
// Element access and the data-check pattern, compiled both by g++ (host backends, tests) and by nvcc
// (fill/verify kernels), so host and device agree bit for bit. No CUDA types appear here.
#pragma once

#include <cstdint>
#include <cstring>

#include "core/dtype.h"

#if defined(__CUDACC__)
#define PB_HD __host__ __device__
#else
#define PB_HD
#endif

namespace pipebench {

// IEEE 754 binary16 from binary32, round to nearest even (subnormals, overflow to infinity, NaN kept).
PB_HD inline std::uint16_t float_to_half_bits(float f) {
  std::uint32_t x;
  std::memcpy(&x, &f, sizeof x);
  const std::uint32_t sign = (x >> 16) & 0x8000u;
  const std::uint32_t biased = (x >> 23) & 0xffu;
  std::uint32_t mant = x & 0x7fffffu;
  if (biased == 0xffu) return static_cast<std::uint16_t>(sign | 0x7c00u | (mant ? 0x200u : 0u));
  const int exp = static_cast<int>(biased) - 127 + 15;
  if (exp >= 31) return static_cast<std::uint16_t>(sign | 0x7c00u);
  if (exp <= 0) {
    if (exp < -10) return static_cast<std::uint16_t>(sign);
    mant |= 0x800000u;
    const int shift = 14 - exp;
    std::uint32_t h = mant >> shift;
    const std::uint32_t rem = mant & ((1u << shift) - 1u);
    const std::uint32_t halfway = 1u << (shift - 1);
    if (rem > halfway || (rem == halfway && (h & 1u))) ++h;
    return static_cast<std::uint16_t>(sign | h);
  }
  std::uint32_t h = (static_cast<std::uint32_t>(exp) << 10) | (mant >> 13);
  const std::uint32_t rem = mant & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) ++h;  // a carry into the exponent is correct
  return static_cast<std::uint16_t>(sign | h);
}

PB_HD inline float half_bits_to_float(std::uint16_t h) {
  const std::uint32_t sign = (static_cast<std::uint32_t>(h) & 0x8000u) << 16;
  std::uint32_t exp = (h >> 10) & 0x1fu;
  std::uint32_t mant = h & 0x3ffu;
  std::uint32_t bits;
  if (exp == 0) {
    if (mant == 0) {
      bits = sign;
    } else {
      exp = 127 - 15 + 1;
      while (!(mant & 0x400u)) {
        mant <<= 1;
        --exp;
      }
      bits = sign | (exp << 23) | ((mant & 0x3ffu) << 13);
    }
  } else if (exp == 31) {
    bits = sign | 0x7f800000u | (mant << 13);
  } else {
    bits = sign | ((exp + 112u) << 23) | (mant << 13);
  }
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

// bfloat16 is the top half of binary32; round to nearest even, NaN stays NaN.
PB_HD inline std::uint16_t float_to_bf16_bits(float f) {
  std::uint32_t x;
  std::memcpy(&x, &f, sizeof x);
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<std::uint16_t>((x >> 16) | 0x40u);
  x += 0x7fffu + ((x >> 16) & 1u);
  return static_cast<std::uint16_t>(x >> 16);
}

PB_HD inline float bf16_bits_to_float(std::uint16_t b) {
  const std::uint32_t bits = static_cast<std::uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

// The bit pattern that value v has when stored as t (zero-extended to 64 bits).
PB_HD inline std::uint64_t value_bits(DType t, double v) {
  switch (t) {
    case DType::kInt8:
      return static_cast<std::uint8_t>(static_cast<std::int8_t>(v));
    case DType::kUint8:
      return static_cast<std::uint8_t>(v);
    case DType::kInt32:
      return static_cast<std::uint32_t>(static_cast<std::int32_t>(v));
    case DType::kUint32:
      return static_cast<std::uint32_t>(v);
    case DType::kInt64:
      return static_cast<std::uint64_t>(static_cast<std::int64_t>(v));
    case DType::kUint64:
      return static_cast<std::uint64_t>(v);
    case DType::kHalf:
      return float_to_half_bits(static_cast<float>(v));
    case DType::kBfloat16:
      return float_to_bf16_bits(static_cast<float>(v));
    case DType::kFloat: {
      const float f = static_cast<float>(v);
      std::uint32_t b;
      std::memcpy(&b, &f, sizeof b);
      return b;
    }
    case DType::kDouble: {
      std::uint64_t b;
      std::memcpy(&b, &v, sizeof b);
      return b;
    }
  }
  return 0;
}

PB_HD inline std::uint64_t element_bits(DType t, const void* base, std::uint64_t i) {
  const auto* p = static_cast<const unsigned char*>(base);
  switch (t) {
    case DType::kInt8:
    case DType::kUint8:
      return p[i];
    case DType::kHalf:
    case DType::kBfloat16: {
      std::uint16_t v;
      std::memcpy(&v, p + 2 * i, 2);
      return v;
    }
    case DType::kInt32:
    case DType::kUint32:
    case DType::kFloat: {
      std::uint32_t v;
      std::memcpy(&v, p + 4 * i, 4);
      return v;
    }
    case DType::kInt64:
    case DType::kUint64:
    case DType::kDouble: {
      std::uint64_t v;
      std::memcpy(&v, p + 8 * i, 8);
      return v;
    }
  }
  return 0;
}

PB_HD inline void store_element(DType t, void* base, std::uint64_t i, double v) {
  const std::uint64_t bits = value_bits(t, v);
  auto* p = static_cast<unsigned char*>(base);
  switch (t) {
    case DType::kInt8:
    case DType::kUint8:
      p[i] = static_cast<unsigned char>(bits);
      return;
    case DType::kHalf:
    case DType::kBfloat16: {
      const auto v16 = static_cast<std::uint16_t>(bits);
      std::memcpy(p + 2 * i, &v16, 2);
      return;
    }
    case DType::kInt32:
    case DType::kUint32:
    case DType::kFloat: {
      const auto v32 = static_cast<std::uint32_t>(bits);
      std::memcpy(p + 4 * i, &v32, 4);
      return;
    }
    case DType::kInt64:
    case DType::kUint64:
    case DType::kDouble:
      std::memcpy(p + 8 * i, &bits, 8);
      return;
  }
}

PB_HD inline double load_element(DType t, const void* base, std::uint64_t i) {
  const std::uint64_t b = element_bits(t, base, i);
  switch (t) {
    case DType::kInt8:
      return static_cast<std::int8_t>(b);
    case DType::kUint8:
      return static_cast<std::uint8_t>(b);
    case DType::kInt32:
      return static_cast<std::int32_t>(b);
    case DType::kUint32:
      return static_cast<std::uint32_t>(b);
    case DType::kInt64:
      return static_cast<double>(static_cast<std::int64_t>(b));
    case DType::kUint64:
      return static_cast<double>(b);
    case DType::kHalf:
      return half_bits_to_float(static_cast<std::uint16_t>(b));
    case DType::kBfloat16:
      return bf16_bits_to_float(static_cast<std::uint16_t>(b));
    case DType::kFloat: {
      const auto b32 = static_cast<std::uint32_t>(b);
      float f;
      std::memcpy(&f, &b32, sizeof f);
      return f;
    }
    case DType::kDouble: {
      double d;
      std::memcpy(&d, &b, sizeof d);
      return d;
    }
  }
  return 0;
}

// The data-check pattern. Every input value is a small non-negative integer chosen so that every
// partial result of the reduction stays an exactly representable integer (exact_integer_limit),
// hence the result is the same in any reduction order and the check compares bits with no tolerance
// (the approach of nccl-tests' verifiable/, simplified to closed-form values).
struct Pattern {
  RedOp redop = RedOp::kNone;  // kNone: copy ops (all_gather, broadcast, send/recv)
  int nranks = 1;
  std::uint32_t seed = 0;
  // For kSum: inputs lie in [0, sum_max], so n * sum_max <= the type's exact limit. 0 selects the
  // one-hot scheme (exactly one rank contributes 1 to each element), used when n exceeds the limit.
  int sum_max = 0;
};

// REQUIRES: nranks >= 1. The pattern for a given type, reduction, world size and seed.
inline Pattern make_pattern(DType t, RedOp op, int nranks, std::uint32_t seed) {
  Pattern p;
  p.redop = op;
  p.nranks = nranks;
  p.seed = seed;
  if (op == RedOp::kSum) {
    const double per_rank = exact_integer_limit(t) / nranks;
    p.sum_max = per_rank >= 60 ? 60 : static_cast<int>(per_rank);
  }
  return p;
}

PB_HD inline double pattern_value(const Pattern& p, int rank, std::uint64_t index) {
  const std::uint64_t k = index * 7u + static_cast<std::uint64_t>(rank) * 13u + p.seed;
  const bool hot = (index + static_cast<std::uint64_t>(rank) + p.seed) % static_cast<std::uint64_t>(p.nranks) == 0;
  switch (p.redop) {
    case RedOp::kSum:
      if (p.sum_max > 0) return static_cast<double>(k % static_cast<std::uint64_t>(p.sum_max + 1));
      return hot ? 1.0 : 0.0;
    case RedOp::kProd:
      return hot ? 2.0 : 1.0;  // the product of every element is exactly 2
    default:
      return static_cast<double>(k % 61u);
  }
}

// The reduction over all ranks of pattern_value(p, r, index). O(nranks) per element.
PB_HD inline double reduced_value(const Pattern& p, std::uint64_t index) {
  double acc = pattern_value(p, 0, index);
  for (int r = 1; r < p.nranks; ++r) {
    const double v = pattern_value(p, r, index);
    switch (p.redop) {
      case RedOp::kSum:
        acc += v;
        break;
      case RedOp::kProd:
        acc *= v;
        break;
      case RedOp::kMax:
        acc = v > acc ? v : acc;
        break;
      case RedOp::kMin:
        acc = v < acc ? v : acc;
        break;
      case RedOp::kNone:
        break;
    }
  }
  return acc;
}

}  // namespace pipebench
