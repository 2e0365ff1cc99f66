// SPDX-License-Identifier: Apache-2.0
// NCCL's datatype and reduction for pipebench's DType and RedOp: one mapping for bench's NcclBackend
// and the replay's NCCL runtime, so a replayed collective is the call bench timed.
#pragma once

#include <nccl.h>

#include "core/dtype.h"

namespace pipebench {

inline ncclDataType_t nccl_type(DType t) {
  switch (t) {
    case DType::kInt8:
      return ncclInt8;
    case DType::kUint8:
      return ncclUint8;
    case DType::kInt32:
      return ncclInt32;
    case DType::kUint32:
      return ncclUint32;
    case DType::kInt64:
      return ncclInt64;
    case DType::kUint64:
      return ncclUint64;
    case DType::kHalf:
      return ncclFloat16;
    case DType::kFloat:
      return ncclFloat32;
    case DType::kDouble:
      return ncclFloat64;
    case DType::kBfloat16:
      return ncclBfloat16;
  }
  return ncclFloat32;
}

inline ncclRedOp_t nccl_op(RedOp op) {
  switch (op) {
    case RedOp::kSum:
      return ncclSum;
    case RedOp::kProd:
      return ncclProd;
    case RedOp::kMax:
      return ncclMax;
    case RedOp::kMin:
      return ncclMin;
    case RedOp::kNone:
      break;
  }
  return ncclSum;
}

}  // namespace pipebench
