// SPDX-License-Identifier: Apache-2.0
// The NVTX sweep.
#include "trace/nvtx_sweep.h"

#include <algorithm>

namespace pipebench {

void NvtxSweep::pop() {
  const Open& top = stack_.back();
  on_close_(ClosedRange{top.range, static_cast<int>(stack_.size()) - 1, top.devices, top.nccl_dtype});
  stack_.pop_back();
}

void NvtxSweep::enter_thread(std::int64_t thread) {
  if (any_thread_ && thread == thread_) return;
  while (!stack_.empty()) pop();
  thread_ = thread;
  any_thread_ = true;
}

void NvtxSweep::close_before(std::int64_t time_ns) {
  while (!stack_.empty() && stack_.back().range.end_ns < time_ns) pop();
}

void NvtxSweep::range(SweepRange r) {
  enter_thread(r.thread);
  close_before(r.start_ns);
  stack_.push_back(Open{std::move(r), {}, std::nullopt});
}

const SweepRange* NvtxSweep::launch(std::int64_t thread, std::int64_t time_ns, const SweepKernel& k) {
  enter_thread(thread);
  close_before(time_ns);
  for (Open& open : stack_) {
    auto it = std::find_if(open.devices.begin(), open.devices.end(),
                           [&](const RangeOnDevice& d) { return d.device == k.device; });
    if (it == open.devices.end()) {
      open.devices.push_back(RangeOnDevice{k.device, k.start_ns, k.end_ns, 0, 0});
      it = open.devices.end() - 1;
    }
    it->first_start_ns = std::min(it->first_start_ns, k.start_ns);
    it->last_end_ns = std::max(it->last_end_ns, k.end_ns);
    ++it->kernels;
    if (k.comm) ++it->comm_kernels;
    if (!open.nccl_dtype && k.nccl_dtype) open.nccl_dtype = k.nccl_dtype;
  }
  return stack_.empty() ? nullptr : &stack_.back().range;
}

void NvtxSweep::finish() {
  while (!stack_.empty()) pop();
  any_thread_ = false;
}

}  // namespace pipebench
