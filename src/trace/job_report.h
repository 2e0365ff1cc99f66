// SPDX-License-Identifier: Apache-2.0
// The text report of `pipebench trace DIR|FILE...`: the ranks side by side (temporal breakdown,
// overlap, iteration time), their top kernels and collectives, then --compare and the model check.
#pragma once

#include <ostream>

#include "trace/job_check.h"
#include "trace/job_profile.h"

namespace pipebench {

void print_job_report(std::ostream& out, const JobProfile& job, const JobComparison* compare, const ModelCheck* model,
                      int top_rows);

}  // namespace pipebench
