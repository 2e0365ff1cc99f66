// SPDX-License-Identifier: Apache-2.0
// The measurement loop, written once for every op and backend.
#include "harness/point_runner.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "core/element.h"
#include "core/error.h"
#include "core/units.h"

namespace pipebench {

PointRunner::PointRunner(Backend& backend, const World& world, const BenchConfig& config)
    : backend_(backend), world_(world), config_(config) {}

void PointRunner::reserve(std::size_t send_bytes, std::size_t recv_bytes) {
  if (buffers_ && buffers_->send_bytes() >= send_bytes && buffers_->recv_bytes() >= recv_bytes) return;
  const std::size_t s = std::max(send_bytes, buffers_ ? buffers_->send_bytes() : 0);
  const std::size_t r = std::max(recv_bytes, buffers_ ? buffers_->recv_bytes() : 0);
  buffers_.reset();
  buffers_ = backend_.allocate(s, r);
}

void PointRunner::issue_one() {
  const CallArgs args{*buffers_, sizing_, point_.dtype, point_.redop, point_.in_place, params()};
  backend_.group_begin();
  for (int l = 0; l < backend_.nlocal(); ++l) point_.op->issue(backend_, l, args);
  backend_.group_end();
}

void PointRunner::fill(std::uint32_t seed) {
  const Pattern pattern = make_pattern(point_.dtype, point_.redop, backend_.nranks(), seed);
  for (int l = 0; l < backend_.nlocal(); ++l) {
    const DataLayout d = point_.op->layout(sizing_, backend_.rank_of(l), backend_.nranks(), point_.in_place, params());
    for (const auto& f : d.fills) backend_.fill(*buffers_, l, f, pattern, point_.dtype);
  }
}

void PointRunner::setup(const Point& p) {
  point_ = p;
  samples_us_.clear();
  batch_.reset();
  sizing_ = p.op->sizing(p.requested_bytes, dtype_size(p.dtype), backend_.nranks(), params());
  reserve(sizing_.send_bytes, sizing_.recv_bytes);
  fill(0);
  // Warm-up, timed on the host only to size the batch when a time budget is set.
  backend_.synchronize();
  world_.barrier();
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < config_.warmup; ++i) issue_one();
  backend_.synchronize();
  const double warm_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ops_ = config_.iters;
  if (config_.point_budget_s > 0 && config_.warmup > 0) {
    // Decided from the slowest process, so every process makes the same number of calls.
    const double per_op_s = world_.max(warm_s / config_.warmup);
    const double fit = config_.point_budget_s / std::max(1, config_.reps) / std::max(per_op_s, 1e-9);
    ops_ = static_cast<int>(std::clamp(std::floor(fit), 1.0, static_cast<double>(config_.iters)));
  }
  batch_ = backend_.prepare_batch([this] { issue_one(); }, ops_, config_.graph);
}

double PointRunner::time_batch() {
  const double per_op_s = world_.max(batch_->run()) / ops_;
  samples_us_.push_back(per_op_s * kUsPerSecond);
  return per_op_s;
}

ResultRecord PointRunner::finish() {
  ResultRecord r;
  const Op& op = *point_.op;
  r.op = std::string(op.name());
  r.backend = std::string(backend_.name());
  r.nranks = backend_.nranks();
  for (int i = 0; i < r.nranks; ++i) r.ranks.push_back(backend_.global_rank(i));
  r.dtype = std::string(dtype_name(point_.dtype));
  r.redop = std::string(redop_name(point_.redop));
  r.root = op.has_root() ? params().root : -1;
  r.size_bytes = sizing_.size_bytes;
  r.count = sizing_.count;
  r.in_place = point_.in_place;
  r.op_has_in_place = op.supports_in_place();
  r.stats = summarize(samples_us_);
  r.time_us = r.stats.median_us;
  // algbw = size / time; busbw = algbw * the op's factor (nccl-tests doc/PERFORMANCE.md).
  r.algbw_gbps = gbps(static_cast<double>(r.size_bytes), r.time_us / kUsPerSecond);
  r.busbw_gbps = r.algbw_gbps * op.bus_bw_factor(r.nranks);
  r.ops_per_batch = ops_;
  r.warmup = config_.warmup;
  r.graph = config_.graph;
  if (op.needs_pairs()) {
    r.pairs = params().pairs;
    r.bidirectional = params().bidirectional;
  }
  batch_.reset();
  if (config_.checks > 0) {
    std::uint64_t wrong = 0;
    for (int c = 1; c <= config_.checks; ++c) {
      fill(static_cast<std::uint32_t>(c));
      issue_one();
      backend_.synchronize();
      const Pattern pattern =
          make_pattern(point_.dtype, point_.redop, backend_.nranks(), static_cast<std::uint32_t>(c));
      for (int l = 0; l < backend_.nlocal(); ++l) {
        const DataLayout d = op.layout(sizing_, backend_.rank_of(l), backend_.nranks(), point_.in_place, params());
        for (const auto& chk : d.checks) wrong += backend_.count_wrong(*buffers_, l, chk, pattern, point_.dtype);
      }
    }
    r.wrong = static_cast<std::int64_t>(world_.sum(wrong));
  }
  return r;
}

ResultRecord PointRunner::measure(const Point& p) {
  setup(p);
  for (int i = 0; i < config_.reps; ++i) (void)time_batch();
  return finish();
}

}  // namespace pipebench
