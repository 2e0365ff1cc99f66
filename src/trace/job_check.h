// SPDX-License-Identifier: Apache-2.0
// A job's profile held against another run (--compare: e.g. 1F1B against interleaved) and against the
// model (--prediction, --replay): per rank the communication share (NCCL kernel time / span, what the
// simulator's nccl_share predicts) and the iteration time.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "replay/replay.h"
#include "sim/predictor.h"
#include "trace/job_profile.h"

namespace pipebench {

struct RankShares {
  double compute = 0, comm = 0, overlap = 0, idle = 0, iteration_ms = 0;
};

struct RankDelta {
  int rank = 0;
  RankShares here, other;  // this run, the --compare run
};

struct JobComparison {
  std::vector<std::string> other_inputs;
  std::vector<RankDelta> ranks;  // ranks in both runs
  std::vector<int> only_here, only_other;
};

[[nodiscard]] JobComparison compare_jobs(const JobProfile& here, const JobProfile& other);

struct ModelRank {
  int rank = 0;
  double measured_comm_share = 0, measured_iteration_ms = 0;
  std::optional<double> predicted_comm_share, predicted_iteration_ms, replayed_comm_share, replayed_iteration_ms;
  std::vector<std::string> mismatches;  // what is beyond the tolerance
};

struct ModelCheck {
  std::string schedule;  // "1f1b", "interleaved:v2"
  std::string prediction_path, replay_path;
  double tolerance = 0;
  std::vector<ModelRank> ranks;
  int mismatches = 0;  // ranks with any mismatch
  std::vector<std::string> notes;
};

// The default --tolerance: shares may differ by 0.10 (absolute), iteration times by 10 % (relative).
inline constexpr double kDefaultModelTolerance = 0.10;

// schedule: "1f1b", "interleaved:v2" (ScheduleId::key); empty: the only schedule of the files. Throws
// UsageError naming the flag when the schedule is not in a file, or when it must be chosen.
[[nodiscard]] ModelCheck check_against_model(const JobProfile& job, const Prediction* prediction,
                                             const std::string& prediction_path, const ReplayResult* replay,
                                             const std::string& replay_path, const std::string& schedule,
                                             double tolerance);

}  // namespace pipebench
