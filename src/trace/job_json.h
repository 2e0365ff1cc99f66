// SPDX-License-Identifier: Apache-2.0
// The job's parts of pipebench.trace/1 (results/README.md): "ranks" (one object per rank: the temporal
// breakdown, alignment offset, iteration time), "alignment", "compare" and "model_check". Additive to
// the one-profile file: readers of the older fields are unaffected.
#pragma once

#include <nlohmann/json.hpp>

#include "trace/job_check.h"
#include "trace/job_profile.h"

namespace pipebench {

[[nodiscard]] nlohmann::json job_ranks_to_json(const JobProfile& job);
[[nodiscard]] nlohmann::json job_alignment_to_json(const JobProfile& job);
[[nodiscard]] nlohmann::json job_compare_to_json(const JobComparison& c);
[[nodiscard]] nlohmann::json model_check_to_json(const ModelCheck& m);

}  // namespace pipebench
