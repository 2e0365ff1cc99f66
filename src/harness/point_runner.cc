// SPDX-License-Identifier: Apache-2.0
// The measurement loop, written once for every op and backend.
#include "harness/point_runner.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>

#include "core/element.h"
#include "core/error.h"
#include "core/units.h"
#include "core/utc_timestamp.h"

namespace pipebench {
namespace {

// A view of buffers shifted by a number of bytes (-u: nccl-tests shifts send and recv by u * element).
class ShiftedBuffers final : public Buffers {
 public:
  ShiftedBuffers(const Buffers& base, std::size_t shift_bytes) : base_(base), shift_(shift_bytes) {}
  void* send(int l) const override { return static_cast<char*>(base_.send(l)) + shift_; }
  void* recv(int l) const override { return static_cast<char*>(base_.recv(l)) + shift_; }
  std::size_t send_bytes() const override { return base_.send_bytes() - shift_; }
  std::size_t recv_bytes() const override { return base_.recv_bytes() - shift_; }

 private:
  const Buffers& base_;
  std::size_t shift_;
};

std::string pack(double v, bool member) {
  std::string s(sizeof v + 1, '\0');
  std::memcpy(s.data(), &v, sizeof v);
  s[sizeof v] = member ? 1 : 0;
  return s;
}

// -a over the processes `of` (all when null), from every process's (seconds, member) in rank order.
double combine(const std::vector<std::string>& packed, const std::vector<int>* of, RankStat stat) {
  double sum = 0, best = 0;
  int members = 0;
  const auto take = [&](std::size_t p) {
    const std::string& s = packed[p];
    if (s.size() != sizeof(double) + 1 || s[sizeof(double)] == 0) return false;
    double v = 0;
    std::memcpy(&v, s.data(), sizeof v);
    if (stat == RankStat::kRank0 && members == 0) best = v;
    if (stat == RankStat::kMax) best = members ? std::max(best, v) : v;
    if (stat == RankStat::kMin) best = members ? std::min(best, v) : v;
    sum += v;
    ++members;
    return true;
  };
  if (of) {
    for (int p : *of) (void)take(static_cast<std::size_t>(p));
  } else {
    for (std::size_t p = 0; p < packed.size(); ++p) (void)take(p);
  }
  if (members == 0) return 0.0;
  return stat == RankStat::kMean ? sum / members : best;
}

// The record's statistics over the samples (us per op) and its bandwidths. -K: nccl-tests leaves the first
// K per-iteration samples out of its statistics. algbw = size / time; busbw = algbw * the op's factor
// (nccl-tests doc/PERFORMANCE.md).
void set_times(ResultRecord& r, const std::vector<double>& samples_us, int per_iter_skip, const Op& op) {
  const auto skip = std::min(static_cast<std::size_t>(std::clamp<int>(per_iter_skip, 0, 1 << 30)), samples_us.size());
  r.stats = summarize(std::vector<double>(samples_us.begin() + static_cast<std::ptrdiff_t>(skip), samples_us.end()));
  r.time_us = r.stats.median_us;
  r.algbw_gbps = gbps(static_cast<double>(r.size_bytes), r.time_us / kUsPerSecond);
  r.busbw_gbps = r.algbw_gbps * op.bus_bw_factor(r.nranks);
}

}  // namespace

double combine_over_ranks(const World& world, double seconds, bool member, RankStat stat) {
  if (stat == RankStat::kMax) return world.max(member ? seconds : 0.0);
  if (stat == RankStat::kMin) return world.min(member ? seconds : std::numeric_limits<double>::infinity());
  return combine(world.all_gather(pack(seconds, member)), nullptr, stat);
}

PointRunner::PointRunner(Backend& backend, const World& world, const MeasureSettings& settings, const SweepSpec& sweep)
    : backend_(backend), world_(world), settings_(settings), sweep_(sweep) {
  if (sweep.split) split_processes_ = split_groups(*sweep.split, world.size());
}

std::size_t PointRunner::unalign_margin_bytes(const MeasureSettings& settings) {
  return static_cast<std::size_t>(settings.unalign_elems) * 8;  // 8: the widest element (int64, double)
}

void PointRunner::reserve(std::size_t send_bytes, std::size_t recv_bytes) {
  const std::size_t margin = unalign_margin_bytes(settings_);
  send_bytes += margin;
  recv_bytes += margin;
  if (buffers_ && buffers_->send_bytes() >= send_bytes && buffers_->recv_bytes() >= recv_bytes) return;
  const std::size_t s = std::max(send_bytes, buffers_ ? buffers_->send_bytes() : 0);
  const std::size_t r = std::max(recv_bytes, buffers_ ? buffers_->recv_bytes() : 0);
  view_.reset();
  buffers_.reset();
  buffers_ = backend_.allocate(s, r, settings_.buffers);
}

void PointRunner::issue(int agg) {
  const CallArgs args{*view_, sizing_, point_.dtype, point_.redop, point_.in_place, params()};
  backend_.group_begin();
  for (int a = 0; a < agg; ++a) {
    for (int l = 0; l < backend_.nlocal(); ++l) point_.op->issue(backend_, l, args);
  }
  backend_.group_end();
}

void PointRunner::issue_iteration() {
  issue(settings_.agg);
  // nccl-tests startColl: -z 1 syncs and then barriers after each op, -z 2 only syncs.
  if (settings_.blocking == 1 || settings_.blocking == 2) backend_.synchronize();
  if (settings_.blocking == 1) world_.barrier();
}

void PointRunner::fill(std::uint32_t seed) {
  const Pattern pattern = make_pattern(point_.dtype, point_.redop, backend_.nranks(), seed);
  for (int l = 0; l < backend_.nlocal(); ++l) {
    const DataLayout d = point_.op->layout(sizing_, backend_.rank_of(l), backend_.nranks(), point_.in_place, params());
    for (const auto& f : d.fills) backend_.fill(*view_, l, f, pattern, point_.dtype);
  }
}

void PointRunner::setup(const Point& p) {
  point_ = p;
  samples_us_.clear();
  group_samples_us_.clear();
  batch_.reset();
  sizing_ = p.op->sizing(p.requested_bytes, dtype_size(p.dtype), backend_.nranks(), params());
  reserve(sizing_.send_bytes, sizing_.recv_bytes);
  view_ = std::make_unique<ShiftedBuffers>(*buffers_,
                                           static_cast<std::size_t>(settings_.unalign_elems) * dtype_size(p.dtype));
  fill(0);
  // Warm-up, timed on the host only to size the batch when a time budget is set.
  backend_.synchronize();
  world_.barrier();
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < settings_.warmup; ++i) issue(settings_.agg);
  backend_.synchronize();
  const double warm_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ops_ = settings_.iters;
  if (settings_.point_budget_s > 0 && settings_.warmup > 0) {
    // Decided from the slowest process, so every process makes the same number of calls.
    const double per_op_s = world_.max(warm_s / settings_.warmup);
    const double fit = settings_.point_budget_s / std::max(1, settings_.reps) / std::max(per_op_s, 1e-9);
    ops_ = static_cast<int>(std::clamp(std::floor(fit), 1.0, static_cast<double>(settings_.iters)));
  }
  // -z 3: every iteration is its own batch, so the sync and barrier between them stay untimed.
  const int per_batch = settings_.blocking == 3 ? 1 : ops_;
  batch_ = backend_.prepare_batch([this] { issue_iteration(); }, per_batch, settings_.graph);
}

double PointRunner::time_batch() {
  double seconds = 0;
  const int runs = settings_.blocking == 3 ? ops_ : 1;
  for (int i = 0; i < runs; ++i) {
    const BatchTime t = batch_->run();
    seconds += settings_.cputime ? t.enqueue_s : t.elapsed_s;
  }
  const double ops = static_cast<double>(ops_) * settings_.agg;
  if (split_processes_.empty()) {
    const double per_op_s = combine_over_ranks(world_, seconds, backend_.nlocal() > 0, settings_.rank_stat) / ops;
    samples_us_.push_back(per_op_s * kUsPerSecond);
    return per_op_s;
  }
  // --split: one gather gives nccl-tests' time over every rank and each group's own.
  const auto packed = world_.all_gather(pack(seconds, backend_.nlocal() > 0));
  group_samples_us_.resize(split_processes_.size());
  for (std::size_t g = 0; g < split_processes_.size(); ++g) {
    group_samples_us_[g].push_back(combine(packed, &split_processes_[g], settings_.rank_stat) / ops * kUsPerSecond);
  }
  const double per_op_s = combine(packed, nullptr, settings_.rank_stat) / ops;
  samples_us_.push_back(per_op_s * kUsPerSecond);
  return per_op_s;
}

PointRunner::CheckResult PointRunner::check() {
  std::uint64_t wrong = 0;
  for (int c = 1; c <= settings_.checks; ++c) {
    fill(static_cast<std::uint32_t>(c));
    issue(1);  // one op, as nccl-tests checks (its -m applies to the timed iterations only)
    backend_.synchronize();
    const Pattern pattern = make_pattern(point_.dtype, point_.redop, backend_.nranks(), static_cast<std::uint32_t>(c));
    for (int l = 0; l < backend_.nlocal(); ++l) {
      const DataLayout d =
          point_.op->layout(sizing_, backend_.rank_of(l), backend_.nranks(), point_.in_place, params());
      for (const auto& chk : d.checks) wrong += backend_.count_wrong(*view_, l, chk, pattern, point_.dtype);
    }
  }
  CheckResult r;
  if (split_processes_.empty()) {
    r.wrong = world_.sum(wrong);
    r.out_of_bounds = static_cast<int>(world_.sum(wrong > 0 ? 1 : 0));
    return r;
  }
  const auto all = world_.all_gather(std::to_string(wrong));
  for (const auto& group : split_processes_) {
    std::uint64_t w = 0;
    int oob = 0;
    for (int p : group) {
      const std::uint64_t v = std::stoull(all[static_cast<std::size_t>(p)]);
      w += v;
      oob += v > 0 ? 1 : 0;
    }
    r.group_wrong.push_back(w);
    r.group_out_of_bounds.push_back(oob);
    r.wrong += w;
    r.out_of_bounds += oob;
  }
  return r;
}

ResultRecord PointRunner::group_record(const ResultRecord& all, std::size_t g, const CheckResult& c) const {
  ResultRecord r = all;
  r.split_aggregate = false;
  r.split_group = static_cast<int>(g);
  // The ranks of process p are p * nlocal .. p * nlocal + nlocal - 1 (bench's --split members).
  r.ranks.clear();
  for (int p : split_processes_[g]) {
    for (int i = 0; i < backend_.nlocal(); ++i) r.ranks.push_back(p * backend_.nlocal() + i);
  }
  r.nranks = static_cast<int>(r.ranks.size());
  set_times(r, group_samples_us_[g], settings_.per_iter_skip, *point_.op);
  if (checks_point()) {
    r.wrong = static_cast<std::int64_t>(c.group_wrong[g]);
    r.out_of_bounds = c.group_out_of_bounds[g];
  }
  return r;
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
  r.root = op.traits().has_root ? params().root : -1;
  r.size_bytes = sizing_.size_bytes;
  r.count = sizing_.count;
  r.in_place = point_.in_place;
  r.op_has_in_place = times_in_place(op, sweep_);
  set_times(r, samples_us_, settings_.per_iter_skip, op);
  r.ops_per_batch = ops_;
  r.warmup = settings_.warmup;
  r.graph = settings_.graph;
  if (settings_.timestamps) r.timestamp = utc_timestamp("%Y-%m-%d %H:%M:%S");
  if (op.traits().is_transfer) {
    r.pairs = params().pairs;
    r.bidirectional = params().bidirectional;
  }
  batch_.reset();
  group_records_.clear();
  CheckResult checked;
  if (checks_point()) {
    checked = check();
    r.wrong = static_cast<std::int64_t>(checked.wrong);
    r.out_of_bounds = checked.out_of_bounds;
  }
  if (!split_processes_.empty()) {
    r.split_aggregate = true;
    for (std::size_t g = 0; g < split_processes_.size(); ++g) group_records_.push_back(group_record(r, g, checked));
  }
  return r;
}

ResultRecord PointRunner::measure(const Point& p) {
  setup(p);
  for (int i = 0; i < settings_.reps; ++i) (void)time_batch();
  return finish();
}

}  // namespace pipebench
