// SPDX-License-Identifier: Apache-2.0
// HugePageArena: memory for large data written once and read many times (a schedule's compiled programs,
// which predict simulates a dozen times), taken from 2 MiB-aligned blocks that the kernel is asked to
// back with transparent huge pages (madvise MADV_HUGEPAGE, Linux; elsewhere, or where THP is off, the same
// blocks with ordinary pages). One huge page instead of 512 ordinary ones is one page fault instead of 512
// when the data is first written, and one TLB entry when it is read. Monotonic: memory is given back when
// the arena is destroyed, not when a container frees it.
#pragma once

#include <cstddef>
#include <memory_resource>
#include <vector>

namespace pipebench {

class HugePageArena final : public std::pmr::memory_resource {
 public:
  HugePageArena() = default;
  HugePageArena(const HugePageArena&) = delete;
  HugePageArena& operator=(const HugePageArena&) = delete;
  ~HugePageArena() override;

  // Bytes taken from the system so far (whole blocks).
  [[nodiscard]] std::size_t reserved_bytes() const;

 private:
  struct Block {
    void* base = nullptr;
    std::size_t size_bytes = 0;
  };
  void* do_allocate(std::size_t bytes, std::size_t alignment) override;
  void do_deallocate(void*, std::size_t, std::size_t) override {}  // given back with the arena
  [[nodiscard]] bool do_is_equal(const std::pmr::memory_resource& other) const noexcept override {
    return this == &other;
  }
  void add_block(std::size_t at_least_bytes);

  std::vector<Block> blocks_;
  char* next_ = nullptr;
  char* end_ = nullptr;
};

}  // namespace pipebench
