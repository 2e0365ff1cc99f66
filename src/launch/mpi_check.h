// SPDX-License-Identifier: Apache-2.0
// Turns an MPI return code into an Error naming the call, the rank and the host. Include only where
// mpi.h is available (PB_HAVE_MPI).
#pragma once

#include <mpi.h>

#include <string>

#include "core/error.h"

namespace pipebench {

inline void check_mpi(int rc, const char* call, const std::string& where) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING] = {};
  int len = 0;
  MPI_Error_string(rc, text, &len);
  throw Error(std::string(call) + " failed on " + where + ": " + text);
}

}  // namespace pipebench
