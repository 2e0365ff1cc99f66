// SPDX-License-Identifier: Apache-2.0
// PointRunner: measures one point (op, type, reduction, size, placement) on a backend. Warm-up, then
// timed batches of -n iterations of -m ops each, whose time is combined over all processes (-a; the
// maximum by default), then the data check. It returns a ResultRecord and never prints. Every process
// makes exactly the same calls.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "backend/backend.h"
#include "collectives/op.h"
#include "harness/measure_settings.h"
#include "harness/record.h"
#include "harness/sweep_spec.h"
#include "launch/world.h"

namespace pipebench {

struct Point {
  const Op* op = nullptr;
  DType dtype = DType::kFloat;
  RedOp redop = RedOp::kNone;
  std::uint64_t requested_bytes = 0;
  bool in_place = false;
  const OpParams* params = nullptr;  // null: the sweep's; else must outlive the measurement
};

// -a (nccl-tests Allreduce(args, &deltaSec, average)): a batch's seconds over every process of the job.
// Processes holding no member of the communicator (member false) take part but do not count; kRank0
// takes the lowest process that holds one. Collective.
[[nodiscard]] double combine_over_ranks(const World& world, double seconds, bool member, RankStat stat);

// Whether a sweep times an in-place placement of op: its own, or the one nccl-tests times unchecked when
// pipebench was started as an nccl-tests binary (Op::nccl_tests_unchecked_in_place).
[[nodiscard]] inline bool times_in_place(const Op& op, const SweepSpec& sweep) {
  return op.traits().supports_in_place || (sweep.nccl_tests_points && op.traits().nccl_tests_unchecked_in_place);
}

class PointRunner {
 public:
  // REQUIRES: backend, world, settings and sweep outlive the runner. backend may have nlocal() == 0 (this
  // process holds no member of the group): it still takes part in every barrier and reduction.
  PointRunner(Backend& backend, const World& world, const MeasureSettings& settings, const SweepSpec& sweep);

  // Buffers for the largest point of a sweep, allocated once (nccl-tests allocates for -e once).
  void reserve(std::size_t send_bytes, std::size_t recv_bytes);

  // Sizing, data fill, warm-up and batch preparation for p.
  void setup(const Point& p);
  // Runs one timed batch; returns the per-op time in seconds, the maximum over all processes.
  [[nodiscard]] double time_batch();
  // Statistics over the batches timed since setup, then the data check.
  [[nodiscard]] ResultRecord finish();

  // --split: each group's own record of the point finish() ended (time over the group's processes with -a,
  // its wrong values), in group order; empty without --split.
  [[nodiscard]] const std::vector<ResultRecord>& group_records() const { return group_records_; }

  // setup + reps x time_batch + finish.
  [[nodiscard]] ResultRecord measure(const Point& p);

  [[nodiscard]] int ops_per_batch() const { return ops_; }

  // Bytes a buffer needs beyond an op's own for -u (the shift of the widest type).
  [[nodiscard]] static std::size_t unalign_margin_bytes(const MeasureSettings& settings);

 private:
  [[nodiscard]] const OpParams& params() const { return point_.params ? *point_.params : sweep_.params; }
  // One iteration: `agg` ops for every local rank in one group (nccl-tests -m).
  void issue(int agg);
  // One timed iteration with the -z mode's synchronisation (modes 1 and 2 inside the timed region).
  void issue_iteration();
  void fill(std::uint32_t seed);
  // -c runs: wrong elements and the processes that found any, over all processes and per --split group.
  struct CheckResult {
    std::uint64_t wrong = 0;
    int out_of_bounds = 0;
    std::vector<std::uint64_t> group_wrong;
    std::vector<int> group_out_of_bounds;
  };
  [[nodiscard]] CheckResult check();
  // Whether the point's data are checked: -c > 0, and not a placement nccl-tests times unchecked.
  [[nodiscard]] bool checks_point() const {
    return settings_.checks > 0 && (!point_.in_place || point_.op->traits().supports_in_place);
  }
  [[nodiscard]] ResultRecord group_record(const ResultRecord& all, std::size_t g, const CheckResult& c) const;

  Backend& backend_;
  const World& world_;
  const MeasureSettings& settings_;
  const SweepSpec& sweep_;
  std::unique_ptr<Buffers> buffers_;
  std::unique_ptr<Buffers> view_;  // buffers_ shifted by -u elements of the point's type
  Point point_;
  Sizing sizing_;
  int ops_ = 1;
  std::unique_ptr<Batch> batch_;
  std::vector<double> samples_us_;
  std::vector<std::vector<int>> split_processes_;      // --split: each group's processes
  std::vector<std::vector<double>> group_samples_us_;  // --split: per group, one sample per batch
  std::vector<ResultRecord> group_records_;
};

}  // namespace pipebench
