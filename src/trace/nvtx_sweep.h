// SPDX-License-Identifier: Apache-2.0
// Kernel -> NVTX range attribution in one pass (trace-formats.md C1: the innermost push/pop range of the
// launching thread that holds the launch call), and the projection of every range onto the GPU: from
// the first to the last kernel launched inside it, per device.
//
// The caller merges two streams, both sorted by (thread, time): ranges by start and kernel launches by
// the time of their launch call, a range before a launch at the same time. Push/pop ranges nest
// strictly per thread, so one stack holds every range open at the current time; memory is the nesting
// depth, not the profile size.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "trace/trace_dtype.h"

namespace pipebench {

struct SweepRange {
  std::int64_t thread = 0;  // opaque thread key (nsys globalTid; a Kineto pid/tid pair)
  std::int64_t start_ns = 0, end_ns = 0;
  std::string text;
  std::string payload{};  // the range's exported JSON payload (nsys NVTX_EVENTS.jsonText); empty: none
};

struct SweepKernel {
  int device = 0;
  std::int64_t stream = 0, start_ns = 0, end_ns = 0;
  bool comm = false;
  std::optional<TraceDType> nccl_dtype;
};

struct RangeOnDevice {
  int device = 0;
  std::int64_t first_start_ns = 0, last_end_ns = 0, kernels = 0, comm_kernels = 0;
};

struct ClosedRange {
  const SweepRange& range;
  int depth = 0;                                // 0: outermost
  const std::vector<RangeOnDevice>& devices;    // kernels launched inside it (nested ranges included)
  const std::optional<TraceDType>& nccl_dtype;  // first dtype an NCCL kernel inside it names
};

class NvtxSweep {
 public:
  using OnClose = std::function<void(const ClosedRange&)>;
  explicit NvtxSweep(OnClose on_close) : on_close_(std::move(on_close)) {}

  void range(SweepRange r);
  // The innermost open range of `thread` that holds time_ns, or nullptr.
  const SweepRange* launch(std::int64_t thread, std::int64_t time_ns, const SweepKernel& k);
  // Closes every open range (call once at the end).
  void finish();

 private:
  struct Open {
    SweepRange range;
    std::vector<RangeOnDevice> devices;
    std::optional<TraceDType> nccl_dtype;
  };
  void enter_thread(std::int64_t thread);
  void close_before(std::int64_t time_ns);
  void pop();

  OnClose on_close_;
  std::vector<Open> stack_;
  std::int64_t thread_ = 0;
  bool any_thread_ = false;
};

}  // namespace pipebench
