// SPDX-License-Identifier: Apache-2.0
// Error types: every failure the user can cause or see is one of these, caught per point or in main.
#pragma once

#include <stdexcept>
#include <string>

namespace pipebench {

// A runtime failure (a CUDA/NCCL/MPI call, a file that cannot be written). The message names the call
// and, where the thrower knows them, the rank and host.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Bad input: a flag, value or file the user gave. main() prints it on one line and exits 2.
class UsageError : public Error {
 public:
  using Error::Error;
};

// Bad input seen by one rank only (e.g. its GPUs): the others may already wait in a collective, so
// main prints it on that rank and aborts the job with exit status 2.
class LocalUsageError : public UsageError {
 public:
  using UsageError::UsageError;
};

// Exit statuses, documented in README.md.
enum class ExitCode : int {
  kOk = 0,
  kRuntimeError = 1,
  kUsage = 2,
  kWrongData = 3,
  // nccl-tests' testNumResults: the average bus bandwidth fell below NCCL_TESTS_MIN_BW (x 0.9), or, when
  // started as an nccl-tests binary (all_reduce_perf), wrong data as well (nccl-tests src/common.h).
  kNcclTestsResults = 7,
};

}  // namespace pipebench
