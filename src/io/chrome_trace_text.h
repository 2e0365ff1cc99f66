// SPDX-License-Identifier: Apache-2.0
// The Chrome trace of a schedule's timeline, simulated (`predict --trace`) or measured (`replay --trace`):
// one process per rank ("rank N"), threads compute / send / recv / collectives, one complete event per
// task, timestamps in microseconds; the two open side by side in Perfetto. The text is made event by event and handed over in pieces of a
// bounded size, so that memory does not grow with the trace (a p 64, v 8, m 1024 plan's traces are
// about 900 MB of text).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "replay/replay.h"
#include "sim/predictor.h"

namespace pipebench {

using TracePieceSink = std::function<void(std::string_view)>;

// The trace's JSON text ({"traceEvents": [...], "displayTimeUnit": "ms"} and a newline), in order.
void chrome_trace_text(const SchedulePrediction& s, const TracePieceSink& put);
void chrome_trace_text(const ScheduleReplay& s, const TracePieceSink& put);

// The trace written to PATH as core/file_io.h's write_output_file writes (atomically, FLAG naming the
// file in errors). Returns the bytes written.
std::int64_t write_chrome_trace(const std::string& flag, const std::string& path, const SchedulePrediction& s);
std::int64_t write_chrome_trace(const std::string& flag, const std::string& path, const ScheduleReplay& s);

}  // namespace pipebench
