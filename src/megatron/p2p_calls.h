// SPDX-License-Identifier: Apache-2.0
// The pipeline P2P calls one rank issues in one iteration, in Megatron's order: the calls of the schedule's
// registered generator (schedule/schedule_registry.h), the same steps the simulator and the replay run,
// on Megatron's shape (megatron_shape, plan.h). A call's ops go out together: one batch_isend_irecv (1F1B,
// interleaved with --no-overlap-p2p-communication) or isend/irecv posted together and left in flight
// (interleaved with overlap, p2p_communication.py _p2p_ops). The plan's `batch` ids come from here.
#pragma once

#include <functional>

#include "schedule/program.h"
#include "schedule/schedule_id.h"

namespace pipebench {

// Calls pipeline rank r issues for schedule `id` of this shape, each with at least one op, in order.
void for_each_p2p_call(const ScheduleShape& shape, const ScheduleId& id, int r,
                       const std::function<void(const Call&)>& f);

}  // namespace pipebench
