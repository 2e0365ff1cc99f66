// SPDX-License-Identifier: Apache-2.0
// The element-wise reduction of half and bfloat16 words that the MPI backend's user-defined ops run
// (mpi_types.cc): each pair widens to binary32, combines in binary32, and rounds back to nearest even,
// as core/element.h converts. Plain C++ without MPI, so the unit tests hold it against element.h.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/dtype.h"

namespace pipebench {

// inout[i] = in[i] OP inout[i] for i < count. t is kHalf or kBfloat16; op is not kNone (a no-op there).
// Sum and product round once, from binary32; max and min return one of the two inputs (a > b ? a : b,
// a < b ? a : b, with a = in[i]). A NaN result is a NaN; its payload is not specified.
// On x86-64 with F16C (half) or AVX2 (bfloat16) eight words go at a time, with the same results:
// the scalar loop converts in software (about 6 ns a word on a 2-core Xeon, against 0.1 ns), and it is
// this loop that a replay's or bench's gradient all-reduce of a 16-bit model spends its time in.
void reduce_words16(DType t, RedOp op, const std::uint16_t* in, std::uint16_t* inout, std::size_t count);

}  // namespace pipebench
