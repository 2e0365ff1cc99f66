// SPDX-License-Identifier: Apache-2.0
// The plan's console text (`pipebench plan`): the model and its layout, then per schedule its warm-up,
// bubble, parameters per stage, the messages of the first pipeline group and their bytes per rank beside
// 1F1B's.
#pragma once

#include <ostream>

#include "megatron/plan.h"

namespace pipebench {

void print_plan(std::ostream& out, const Plan& plan);

}  // namespace pipebench
