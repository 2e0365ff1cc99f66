// SPDX-License-Identifier: Apache-2.0
#include "backend/half_reduce.h"

#include "core/element.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#include <immintrin.h>
#define PB_X86_VECTORS 1
#endif

namespace pipebench {
namespace {

template <RedOp O>
float combine(float a, float b) {
  switch (O) {
    case RedOp::kSum:
      return a + b;
    case RedOp::kProd:
      return a * b;
    case RedOp::kMax:
      return a > b ? a : b;
    case RedOp::kMin:
      return a < b ? a : b;
    case RedOp::kNone:
      break;
  }
  return b;
}

template <DType T>
float widen(std::uint16_t w) {
  return T == DType::kHalf ? half_bits_to_float(w) : bf16_bits_to_float(w);
}

template <DType T>
std::uint16_t narrow(float f) {
  return T == DType::kHalf ? float_to_half_bits(f) : float_to_bf16_bits(f);
}

template <DType T, RedOp O>
void scalar(const std::uint16_t* in, std::uint16_t* inout, std::size_t begin, std::size_t count) {
  for (std::size_t i = begin; i < count; ++i) inout[i] = narrow<T>(combine<O>(widen<T>(in[i]), widen<T>(inout[i])));
}

#ifdef PB_X86_VECTORS
// The vector forms of combine(): MAXPS/MINPS return their first operand where it compares greater
// (less), else the second, which is combine()'s a > b ? a : b (Intel SDM, MAXPS/MINPS).
template <RedOp O>
__attribute__((target("avx2,f16c"))) __m256 combine8(__m256 a, __m256 b) {
  switch (O) {
    case RedOp::kSum:
      return _mm256_add_ps(a, b);
    case RedOp::kProd:
      return _mm256_mul_ps(a, b);
    case RedOp::kMax:
      return _mm256_max_ps(a, b);
    case RedOp::kMin:
      return _mm256_min_ps(a, b);
    case RedOp::kNone:
      break;
  }
  return b;
}

// Half: VCVTPH2PS widens exactly; VCVTPS2PH with round-to-nearest-even narrows as float_to_half_bits
// does, subnormals and overflow to infinity included (Intel SDM, VCVTPS2PH).
template <RedOp O>
__attribute__((target("avx2,f16c"))) void half8(const std::uint16_t* in, std::uint16_t* inout, std::size_t count) {
  std::size_t i = 0;
  for (; i + 8 <= count; i += 8) {
    const __m256 a = _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(in + i)));
    const __m256 b = _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(inout + i)));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(inout + i),
                     _mm256_cvtps_ph(combine8<O>(a, b), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
  }
  scalar<DType::kHalf, O>(in, inout, i, count);
}

// bfloat16: widening is a shift; narrowing is float_to_bf16_bits's rounding on 32-bit lanes, with its
// quiet NaN where the lane is a NaN.
__attribute__((target("avx2,f16c"))) __m256 widen_bf16x8(const std::uint16_t* p) {
  const __m256i w = _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
  return _mm256_castsi256_ps(_mm256_slli_epi32(w, 16));
}

__attribute__((target("avx2,f16c"))) __m128i narrow_bf16x8(__m256 f) {
  const __m256i x = _mm256_castps_si256(f);
  const __m256i odd = _mm256_and_si256(_mm256_srli_epi32(x, 16), _mm256_set1_epi32(1));
  const __m256i rounded = _mm256_srli_epi32(_mm256_add_epi32(x, _mm256_add_epi32(_mm256_set1_epi32(0x7fff), odd)), 16);
  const __m256i quiet = _mm256_or_si256(_mm256_srli_epi32(x, 16), _mm256_set1_epi32(0x40));
  const __m256i is_nan =
      _mm256_cmpgt_epi32(_mm256_and_si256(x, _mm256_set1_epi32(0x7fffffff)), _mm256_set1_epi32(0x7f800000));
  const __m256i w = _mm256_blendv_epi8(rounded, quiet, is_nan);
  return _mm_packus_epi32(_mm256_castsi256_si128(w), _mm256_extracti128_si256(w, 1));
}

template <RedOp O>
__attribute__((target("avx2,f16c"))) void bf16x8(const std::uint16_t* in, std::uint16_t* inout, std::size_t count) {
  std::size_t i = 0;
  for (; i + 8 <= count; i += 8) {
    const __m256 r = combine8<O>(widen_bf16x8(in + i), widen_bf16x8(inout + i));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(inout + i), narrow_bf16x8(r));
  }
  scalar<DType::kBfloat16, O>(in, inout, i, count);
}

// AVX2 as the compiler's runtime checks it (the OS saves the YMM registers included); F16C from CPUID
// leaf 1, ECX bit 29 (Intel SDM vol. 2A, CPUID), which not every compiler's __builtin_cpu_supports names.
bool has_vectors() {
  static const bool kHas = [] {
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    return __builtin_cpu_supports("avx2") && __get_cpuid(1, &eax, &ebx, &ecx, &edx) != 0 && (ecx & bit_F16C) != 0;
  }();
  return kHas;
}
#endif

template <DType T, RedOp O>
void reduce(const std::uint16_t* in, std::uint16_t* inout, std::size_t count) {
#ifdef PB_X86_VECTORS
  if (has_vectors()) {
    if (T == DType::kHalf) {
      half8<O>(in, inout, count);
    } else {
      bf16x8<O>(in, inout, count);
    }
    return;
  }
#endif
  scalar<T, O>(in, inout, 0, count);
}

template <DType T>
void reduce_type(RedOp op, const std::uint16_t* in, std::uint16_t* inout, std::size_t count) {
  switch (op) {
    case RedOp::kSum:
      return reduce<T, RedOp::kSum>(in, inout, count);
    case RedOp::kProd:
      return reduce<T, RedOp::kProd>(in, inout, count);
    case RedOp::kMax:
      return reduce<T, RedOp::kMax>(in, inout, count);
    case RedOp::kMin:
      return reduce<T, RedOp::kMin>(in, inout, count);
    case RedOp::kNone:
      return;
  }
}

}  // namespace

void reduce_words16(DType t, RedOp op, const std::uint16_t* in, std::uint16_t* inout, std::size_t count) {
  if (t == DType::kHalf) {
    reduce_type<DType::kHalf>(op, in, inout, count);
  } else if (t == DType::kBfloat16) {
    reduce_type<DType::kBfloat16>(op, in, inout, count);
  }
}

}  // namespace pipebench
