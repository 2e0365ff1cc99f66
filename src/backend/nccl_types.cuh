// SPDX-License-Identifier: Apache-2.0
// NCCL's datatype and reduction for pipebench's DType and RedOp: one mapping for bench's NcclBackend
// and the replay's NCCL runtime, so a replayed collective is the call bench timed.
#pragma once

#include <nccl.h>

#include "core/dtype.h"

namespace pipebench {

// In DType's and RedOp's order (core/dtype.h: their values are stable); RedOp::kNone reduces nothing (ncclSum).
inline ncclDataType_t nccl_type(DType t) {
  constexpr ncclDataType_t kTypes[] = {ncclInt8,   ncclUint8,   ncclInt32,   ncclUint32,  ncclInt64,
                                       ncclUint64, ncclFloat16, ncclFloat32, ncclFloat64, ncclBfloat16};
  return kTypes[static_cast<int>(t)];
}

inline ncclRedOp_t nccl_op(RedOp op) {
  constexpr ncclRedOp_t kOps[] = {ncclSum, ncclSum, ncclProd, ncclMax, ncclMin};
  return kOps[static_cast<int>(op)];
}

}  // namespace pipebench
