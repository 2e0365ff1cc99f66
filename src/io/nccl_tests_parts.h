// SPDX-License-Identifier: Apache-2.0
// What the text and JSON readers of nccl-tests output share: the op names, the NCCL version code, and
// completing a test once its header, devices and rows are read.
#pragma once

#include <map>
#include <string>

#include "io/nccl_tests_log.h"

namespace pipebench {

// NCCL_VERSION_CODE as NCCL writes it: 22803 -> "2.28.3" (major*10000 + minor*100 + patch since 2.9),
// 2708 -> "2.7.8" (major*1000 + minor*100 + patch before).
[[nodiscard]] std::string nccl_version_text(long code);

// Why a row's type and reduction are not as nccl-tests prints them ("with a type or redop that is no
// name", "with a reduction nccl-tests does not have"), or "". Each is 1 to 16 of [a-z0-9_] ("float",
// "bfloat16"; anything else in those columns is not nccl-tests output and is never copied into records),
// the reduction one of its test_opnames (common.cu: sum, prod, max, min, avg, and mulsum for
// ncclPreMulSum) or "none" for an op without one. Another word ("xor") is no nccl-tests row.
[[nodiscard]] std::string nccl_tests_names_problem(const std::string& dtype, const std::string& redop);

// Fills the op, rank count, ranks and groups of a test from its devices, header and the hints, and
// copies them into every record. A test whose op or rank count stays unknown loses its rows, counted
// in `skipped`. Throws UsageError for a hint op nccl-tests does not have.
void finish_log(NcclTestsLog& log, const NcclTestsHints& hints, std::map<std::string, int>& skipped);

}  // namespace pipebench
