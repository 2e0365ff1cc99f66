// SPDX-License-Identifier: Apache-2.0
#include "core/huge_page_arena.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstdint>
#include <new>

namespace pipebench {
namespace {

constexpr std::size_t kHugePageBytes = std::size_t{2} << 20;  // x86-64 and arm64 (4 KiB base pages) PMD size
constexpr std::size_t kBlockBytes = std::size_t{32} << 20;    // a few blocks per schedule of millions of tasks

std::size_t round_up(std::size_t n, std::size_t to) { return (n + to - 1) / to * to; }

}  // namespace

HugePageArena::~HugePageArena() {
  for (const Block& b : blocks_) munmap(b.base, b.size_bytes);
}

std::size_t HugePageArena::reserved_bytes() const {
  std::size_t total = 0;
  for (const Block& b : blocks_) total += b.size_bytes;
  return total;
}

void HugePageArena::add_block(std::size_t at_least_bytes) {
  if (at_least_bytes > (std::size_t{1} << 40)) throw std::bad_alloc();
  const std::size_t size = round_up(std::max(at_least_bytes, kBlockBytes), kHugePageBytes);
  // Mapped one huge page larger, then trimmed to a 2 MiB-aligned start: the kernel backs only aligned
  // 2 MiB ranges with huge pages.
  const std::size_t mapped = size + kHugePageBytes;
  void* raw = mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) throw std::bad_alloc();
  const auto start = reinterpret_cast<std::uintptr_t>(raw);
  const std::uintptr_t aligned = round_up(start, kHugePageBytes);
  const std::size_t head = aligned - start, tail = mapped - head - size;
  if (head > 0) munmap(raw, head);
  if (tail > 0) munmap(reinterpret_cast<void*>(aligned + size), tail);
  void* base = reinterpret_cast<void*>(aligned);
#ifdef MADV_HUGEPAGE
  (void)madvise(base, size, MADV_HUGEPAGE);  // advice: refused (THP off), the pages are ordinary ones
#endif
  blocks_.push_back({base, size});
  next_ = static_cast<char*>(base);
  end_ = next_ + size;
}

void* HugePageArena::do_allocate(std::size_t bytes, std::size_t alignment) {
  const auto fits = [&] {
    if (next_ == nullptr) return false;
    const std::uintptr_t at = round_up(reinterpret_cast<std::uintptr_t>(next_), alignment);
    return at <= reinterpret_cast<std::uintptr_t>(end_) && bytes <= reinterpret_cast<std::uintptr_t>(end_) - at;
  };
  if (!fits()) add_block(bytes + alignment);
  char* at = reinterpret_cast<char*>(round_up(reinterpret_cast<std::uintptr_t>(next_), alignment));
  next_ = at + bytes;
  return at;
}

}  // namespace pipebench
