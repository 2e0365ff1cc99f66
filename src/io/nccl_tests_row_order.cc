// SPDX-License-Identifier: Apache-2.0
// Blocks of rising sizes, each repeated whole or not at all.
#include "io/nccl_tests_row_order.h"

#include <utility>

namespace pipebench {

std::string NcclTestsRowOrder::block_name() const {
  const auto& [dtype, redop, root] = key_;
  return dtype + " " + redop + " root " + std::to_string(root);
}

std::string NcclTestsRowOrder::add(const std::string& dtype, const std::string& redop, int root,
                                   std::uint64_t size_bytes) {
  Key key{dtype, redop, root};
  if (!first_ || key != key_) {
    if (first_ && repeating_ && at_ != first_->size()) {
      return "the rows of " + dtype + " " + redop + " root " + std::to_string(root) + " after " + std::to_string(at_) +
             " of the " + std::to_string(first_->size()) + " sizes of a repeat of the rows of " + block_name();
    }
    key_ = std::move(key);
    const auto [it, is_new] = sizes_.try_emplace(key_);
    first_ = &it->second;
    repeating_ = !is_new;  // a block seen before comes back as a repeat (pipebench's -N) or not at all
    at_ = 0;
    if (is_new) {
      first_->push_back(size_bytes);
      return "";
    }
  } else if (!repeating_ && size_bytes >= first_->back()) {
    first_->push_back(size_bytes);
    return "";
  } else if (!repeating_ || at_ == first_->size()) {
    // Sizes fall: the block starts over (-N), from its first size.
    repeating_ = true;
    at_ = 0;
  }
  if (size_bytes != (*first_)[at_]) {
    const std::string next = std::to_string((*first_)[at_]);
    return "size " + std::to_string(size_bytes) + " in the rows of " + block_name() +
           (at_ == 0 ? ", whose sizes have ended: only a repeat (-N) of them may follow, from " + next
                     : ", where their repeat (-N) has " + next);
  }
  ++at_;
  return "";
}

std::string NcclTestsRowOrder::footer() const {
  if (!first_ || !repeating_ || at_ == first_->size()) return "";
  return "the footer after " + std::to_string(at_) + " of the " + std::to_string(first_->size()) +
         " sizes of a repeat (-N) of the rows of " + block_name();
}

}  // namespace pipebench
