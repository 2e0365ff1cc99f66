// SPDX-License-Identifier: Apache-2.0
// Host loops over the shared element/pattern functions of core/element.h.
#include "backend/host_data.h"

namespace pipebench {

void host_fill(void* buffer, const FillRegion& r, const Pattern& p, DType t) {
  for (std::uint64_t j = 0; j < r.count; ++j) {
    store_element(t, buffer, r.elem_offset + j, pattern_value(p, r.rank, r.index_base + j));
  }
}

std::uint64_t host_count_wrong(const void* recv, const CheckRegion& r, const Pattern& p, DType t) {
  std::uint64_t wrong = 0;
  for (std::uint64_t j = 0; j < r.count; ++j) {
    const std::uint64_t index = r.index_base + j;
    const double want = r.reduced ? reduced_value(p, index) : pattern_value(p, r.from_rank, index);
    wrong += element_bits(t, recv, r.elem_offset + j) != value_bits(t, want);
  }
  return wrong;
}

}  // namespace pipebench
