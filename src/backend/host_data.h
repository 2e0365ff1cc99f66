// SPDX-License-Identifier: Apache-2.0
// The data check on host memory (MPI backend, tests): fill regions and count wrong elements.
#pragma once

#include <cstdint>

#include "core/data_layout.h"
#include "core/dtype.h"
#include "core/element.h"

namespace pipebench {

void host_fill(void* buffer, const FillRegion& region, const Pattern& p, DType t);
[[nodiscard]] std::uint64_t host_count_wrong(const void* recv, const CheckRegion& region, const Pattern& p, DType t);

}  // namespace pipebench
