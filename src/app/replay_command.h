// SPDX-License-Identifier: Apache-2.0
// `pipebench replay --plan FILE ...`: time the plan's messages, predict, then run every schedule for
// real on the plan's ranks and set the measured iteration beside the predicted one.
#pragma once

#include <memory>

#include "core/command.h"

namespace pipebench {

[[nodiscard]] std::unique_ptr<Subcommand> make_replay_command();

}  // namespace pipebench
