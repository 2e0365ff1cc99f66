// SPDX-License-Identifier: Apache-2.0
// A job's per-rank profiles are independent files: read them a few at a time, one thread per core and at most
// 8 (memory holds at most that many files being read), and keep the input order for the results and the error:
// the first failing file (in input order) decides it, as a sequential read would.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <optional>
#include <thread>
#include <vector>

namespace pipebench {

// read(i) for every i in [0, n); the results in order. T: what read returns.
template <typename T, typename Read>
[[nodiscard]] std::vector<T> read_each_file(std::size_t n, const Read& read) {
  std::vector<std::optional<T>> slots(n);
  std::vector<std::exception_ptr> errors(n);
  std::atomic<std::size_t> next{0};
  const auto work = [&] {
    for (std::size_t i = next++; i < n; i = next++) {
      try {
        slots[i] = read(i);
      } catch (...) {
        errors[i] = std::current_exception();
      }
    }
  };
  const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
  const std::size_t threads = std::min<std::size_t>(n, std::min(hw, 8u));
  std::vector<std::thread> pool;
  for (std::size_t t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
  std::vector<T> out;
  out.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    if (errors[i]) std::rethrow_exception(errors[i]);
    out.push_back(std::move(*slots[i]));
  }
  return out;
}

}  // namespace pipebench
