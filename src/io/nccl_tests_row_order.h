// SPDX-License-Identifier: Apache-2.0
// The order of one nccl-tests test's rows, which tells one run from two mixed in one file. nccl-tests
// prints each (type, reduction, root) as one block of rows whose sizes rise (src/common.cu TimeTest:
// equal sizes where the step is below the type's size), and `-N` repeats a block's sizes whole before the
// footer (nccl-tests repeats each block in place; pipebench's -N repeats its sweep of blocks). Rows of
// another run inserted into a test (a run that died without its footer, its output caught in the same
// file) break that order: sizes that fall to a size other than the block's first, a repeat whose sizes
// differ from the block's, or another block or the footer after part of a repeat.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

namespace pipebench {

class NcclTestsRowOrder {
 public:
  // The next row; "" or why it cannot follow the rows before it in one run.
  [[nodiscard]] std::string add(const std::string& dtype, const std::string& redop, int root, std::uint64_t size_bytes);
  // The footer was seen: "" or why the rows cannot end there (a repeat of the sweep cut short).
  [[nodiscard]] std::string footer() const;

 private:
  using Key = std::tuple<std::string, std::string, int>;
  [[nodiscard]] std::string block_name() const;
  std::map<Key, std::vector<std::uint64_t>> sizes_;  // per block, the sizes of its first pass
  Key key_;                                          // the current block
  std::vector<std::uint64_t>* first_ = nullptr;      // the current block's sizes_; null before any row
  std::size_t at_ = 0;                               // rows of the current repeat
  bool repeating_ = false;                           // the current rows repeat the block's first pass
};

// The reason added to each problem above (the same as for a second footer in one test).
inline constexpr const char* kNcclTestsRunsMixed =
    "two nccl-tests runs are interleaved in this log (two processes writing one file?); their rows cannot be "
    "told apart: give each run its own file";

}  // namespace pipebench
