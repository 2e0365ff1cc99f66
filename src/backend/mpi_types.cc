// SPDX-License-Identifier: Apache-2.0
#include "backend/mpi_types.h"

#include <cstddef>
#include <cstdint>

#include "backend/half_reduce.h"

namespace pipebench {
namespace {

template <DType T, RedOp O>
void reduce16(void* in, void* inout, int* len, MPI_Datatype*) {
  // MPI hands the buffers as they were passed: 16-bit words (mpi_type), so aligned for them.
  reduce_words16(T, O, static_cast<const std::uint16_t*>(in), static_cast<std::uint16_t*>(inout),
                 static_cast<std::size_t>(*len));
}

template <DType T>
void create_ops(MPI_Op* ops) {
  MPI_Op_create(&reduce16<T, RedOp::kSum>, 1, &ops[0]);
  MPI_Op_create(&reduce16<T, RedOp::kProd>, 1, &ops[1]);
  MPI_Op_create(&reduce16<T, RedOp::kMax>, 1, &ops[2]);
  MPI_Op_create(&reduce16<T, RedOp::kMin>, 1, &ops[3]);
}

}  // namespace

MPI_Datatype mpi_type(DType t) {
  // In DType's order (dtype.h: its values are stable); half and bfloat16 travel as 16-bit words.
  const MPI_Datatype kTypes[] = {MPI_INT8_T,   MPI_UINT8_T,  MPI_INT32_T, MPI_UINT32_T, MPI_INT64_T,
                                 MPI_UINT64_T, MPI_UINT16_T, MPI_FLOAT,   MPI_DOUBLE,   MPI_UINT16_T};
  return kTypes[static_cast<int>(t)];
}

MpiOps::MpiOps() {
  create_ops<DType::kHalf>(&half_[0]);
  create_ops<DType::kBfloat16>(&half_[4]);
}

MpiOps::~MpiOps() {
  for (auto& op : half_) {
    if (op != MPI_OP_NULL) MPI_Op_free(&op);
  }
}

MPI_Op MpiOps::get(DType t, RedOp op) const {
  if (op == RedOp::kNone) return MPI_OP_NULL;
  if (t == DType::kHalf || t == DType::kBfloat16)
    return half_[(t == DType::kBfloat16 ? 4 : 0) + static_cast<int>(op) - 1];
  const MPI_Op kPredefined[] = {MPI_OP_NULL, MPI_SUM, MPI_PROD, MPI_MAX, MPI_MIN};  // in RedOp's order
  return kPredefined[static_cast<int>(op)];
}

}  // namespace pipebench
