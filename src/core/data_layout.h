// SPDX-License-Identifier: Apache-2.0
// Where an op's inputs go and what its outputs must hold, in elements, for the data check.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace pipebench {

enum class BufferRole { kSend, kRecv };

// Fill buffer[elem_offset + j] = pattern_value(pattern, rank, index_base + j) for j < count.
struct FillRegion {
  BufferRole buffer = BufferRole::kSend;
  std::size_t elem_offset = 0;
  std::size_t count = 0;
  int rank = 0;
  std::uint64_t index_base = 0;
};

// recv[elem_offset + j] must equal reduced_value(pattern, index_base + j) when `reduced`, else
// pattern_value(pattern, from_rank, index_base + j).
struct CheckRegion {
  std::size_t elem_offset = 0;
  std::size_t count = 0;
  bool reduced = false;
  int from_rank = 0;
  std::uint64_t index_base = 0;
};

struct DataLayout {
  std::vector<FillRegion> fills;
  std::vector<CheckRegion> checks;
};

}  // namespace pipebench
