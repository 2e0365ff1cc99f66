// SPDX-License-Identifier: Apache-2.0
// HugePageArena: aligned, disjoint, writable memory from 2 MiB-aligned blocks, for containers too.
#include "core/huge_page_arena.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

namespace pipebench {
namespace {

constexpr std::uintptr_t kTwoMiB = std::uintptr_t{2} << 20;

TEST(HugePageArena, ItsFirstBlockStartsOnAHugePageAndGrowsInWholeHugePages) {
  HugePageArena arena;
  EXPECT_EQ(arena.reserved_bytes(), 0U);
  void* p = arena.allocate(100, 1);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(p) % kTwoMiB, 0U);
  EXPECT_GT(arena.reserved_bytes(), 0U);
  EXPECT_EQ(arena.reserved_bytes() % kTwoMiB, 0U);
}

TEST(HugePageArena, AllocationsAreAlignedDisjointAndKeepWhatIsWritten) {
  HugePageArena arena;
  std::vector<std::pair<unsigned char*, std::size_t>> taken;
  for (std::size_t i = 0; i < 200; ++i) {
    const std::size_t bytes = 1 + i * 977, alignment = std::size_t{1} << (i % 7);
    auto* p = static_cast<unsigned char*>(arena.allocate(bytes, alignment));
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(p) % alignment, 0U) << i;
    std::memset(p, static_cast<int>(i & 0xff), bytes);
    taken.emplace_back(p, bytes);
  }
  // A request larger than a block gets a block of its own.
  const std::size_t big = std::size_t{80} << 20;
  auto* b = static_cast<unsigned char*>(arena.allocate(big, 64));
  b[0] = 7;
  b[big - 1] = 9;
  taken.emplace_back(b, big);
  EXPECT_GE(arena.reserved_bytes(), big);
  for (std::size_t i = 0; i + 1 < taken.size(); ++i) {
    for (std::size_t k = 0; k < taken[i].second; ++k) ASSERT_EQ(taken[i].first[k], i & 0xff) << i << " " << k;
    for (std::size_t j = i + 1; j < taken.size(); ++j) {
      const bool apart =
          taken[i].first + taken[i].second <= taken[j].first || taken[j].first + taken[j].second <= taken[i].first;
      ASSERT_TRUE(apart) << i << " overlaps " << j;
    }
  }
  EXPECT_EQ(b[0], 7);
  EXPECT_EQ(b[big - 1], 9);
}

TEST(HugePageArena, APolymorphicVectorLivesInIt) {
  HugePageArena arena;
  std::pmr::vector<std::int64_t> v(&arena);
  for (std::int64_t i = 0; i < 1000000; ++i) v.push_back(i * 3);
  EXPECT_EQ(v.get_allocator().resource(), &arena);
  EXPECT_EQ(v[999999], 2999997);
  EXPECT_GE(arena.reserved_bytes(), v.size() * sizeof(std::int64_t));
}

}  // namespace
}  // namespace pipebench
