// SPDX-License-Identifier: Apache-2.0
// `pipebench predict --plan P (--table R | --link-gbps X [--link-latency-us Y] | --zero-comm) ...`
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/command.h"
#include "sim/predictor.h"

namespace pipebench {

struct PredictOptions {
  std::string plan_path, table_path, schedule, trace_dir, json_path;
  std::string schedule_file;          // --schedule-file: predicted beside `schedule`'s (schedule/schedule_file.h)
  std::string replay_path;            // --replay: the band of the verdict from this replay's measured error
  std::vector<std::string> profiles;  // --profile: per-rank profiles of the job (trace/profile_calibration.h)
  std::string profile_schedule;       // --profile-schedule: the schedule they ran (default: the one that matches)
  double link_gbps = 0, link_latency_us = 0;
  bool zero_comm = false, shared_path = false;
  bool measure_compute = false;          // time the layer's GEMMs with cuBLAS on GPU 0
  bool w_share_given = false;            // --w-share (else --measure-compute measures W's share)
  bool comm_sm_slowdown_given = false;   // --comm-sm-slowdown (else --measure-compute or --table's pass costs)
  std::optional<double> pass_gap_us;     // --pass-gap-us (else --measure-compute or --table's pass costs)
  std::vector<std::string> class_links;  // --link CLASS=GBPS[,US]
  std::string topology_path;             // class source for --link (default: this machine)
  bool class_fallback = false;
  std::string compare = "steady";  // --compare: the iteration the speed-ups and the verdict compare (steady, cold)
  ComputeOptions compute;
};

[[nodiscard]] std::unique_ptr<Subcommand> make_predict_command();

}  // namespace pipebench
