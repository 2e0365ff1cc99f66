// SPDX-License-Identifier: Apache-2.0
// PointRunner: measures one point (op, type, reduction, size, placement) on a backend. Warm-up, then
// timed batches of -n ops whose time is the maximum over all processes, then the data check. It
// returns a ResultRecord and never prints. Every process makes exactly the same calls.
#pragma once

#include <cstdint>
#include <memory>

#include "backend/backend.h"
#include "collectives/op.h"
#include "harness/bench_config.h"
#include "launch/world.h"
#include "report/record.h"

namespace pipebench {

struct Point {
  const Op* op = nullptr;
  DType dtype = DType::kFloat;
  RedOp redop = RedOp::kNone;
  std::uint64_t requested_bytes = 0;
  bool in_place = false;
  const OpParams* params = nullptr;  // null: the config's; else must outlive the measurement
};

class PointRunner {
 public:
  // REQUIRES: backend, world and config outlive the runner. backend may have nlocal() == 0 (this
  // process holds no member of the group): it still takes part in every barrier and reduction.
  PointRunner(Backend& backend, const World& world, const BenchConfig& config);

  // Buffers for the largest point of a sweep, allocated once (nccl-tests allocates for -e once).
  void reserve(std::size_t send_bytes, std::size_t recv_bytes);

  // Sizing, data fill, warm-up and batch preparation for p.
  void setup(const Point& p);
  // Runs one timed batch; returns the per-op time in seconds, the maximum over all processes.
  [[nodiscard]] double time_batch();
  // Statistics over the batches timed since setup, then the data check.
  [[nodiscard]] ResultRecord finish();

  // setup + reps x time_batch + finish.
  [[nodiscard]] ResultRecord measure(const Point& p);

  [[nodiscard]] int ops_per_batch() const { return ops_; }

 private:
  [[nodiscard]] const OpParams& params() const { return point_.params ? *point_.params : config_.params; }
  void issue_one();
  void fill(std::uint32_t seed);

  Backend& backend_;
  const World& world_;
  const BenchConfig& config_;
  std::unique_ptr<Buffers> buffers_;
  Point point_;
  Sizing sizing_;
  int ops_ = 1;
  std::unique_ptr<Batch> batch_;
  std::vector<double> samples_us_;
};

}  // namespace pipebench
