// SPDX-License-Identifier: Apache-2.0
// MPI datatypes and reduction ops for pipebench's DType and RedOp, one mapping for bench's MpiBackend
// and the replay's MPI runtime, so a replayed collective is the call bench timed. MPI has no 16-bit
// floating types: half and bfloat16 travel as MPI_UINT16_T and reduce with user-defined ops that
// widen to float (MPI 4.0 §6.9.5, user-defined reduction operations).
#pragma once

#include <mpi.h>

#include "core/dtype.h"

namespace pipebench {

[[nodiscard]] MPI_Datatype mpi_type(DType t);

// The reductions: MPI's predefined ops, and for half and bfloat16 user-defined ones, freed with this
// object. REQUIRES: MPI initialised for the object's whole life.
class MpiOps {
 public:
  MpiOps();
  ~MpiOps();
  MpiOps(const MpiOps&) = delete;
  MpiOps& operator=(const MpiOps&) = delete;
  // MPI_OP_NULL for RedOp::kNone.
  [[nodiscard]] MPI_Op get(DType t, RedOp op) const;

 private:
  MPI_Op half_[8] = {MPI_OP_NULL, MPI_OP_NULL, MPI_OP_NULL, MPI_OP_NULL,
                     MPI_OP_NULL, MPI_OP_NULL, MPI_OP_NULL, MPI_OP_NULL};
};

}  // namespace pipebench
