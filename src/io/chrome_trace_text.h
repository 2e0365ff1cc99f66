// SPDX-License-Identifier: Apache-2.0
// The Chrome trace of a schedule's timeline, simulated (`predict --trace`) or measured (`replay --trace`):
// one process per rank ("rank N"), threads compute / send / recv / collectives, one complete event per
// task, timestamps in microseconds; the two open side by side in Perfetto. The text is made event by event and handed
// over in pieces of a bounded size, so that memory does not grow with the trace (a p 64, v 8, m 1024 plan's traces are
// about 900 MB of text).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "replay/replay.h"
#include "sim/predictor.h"

namespace pipebench {

using TracePieceSink = std::function<void(std::string_view)>;

// One trace's text as its events come (predict --trace: from the simulation, sim/predictor.h
// ScheduleTraceSink), handed to `put` in pieces of about a MiB; the process and thread names follow the
// events, as the ranks are known when the schedule is done.
class ChromeTraceText {
 public:
  explicit ChromeTraceText(const TracePieceSink& put);
  ChromeTraceText(const ChromeTraceText&) = delete;
  ChromeTraceText& operator=(const ChromeTraceText&) = delete;
  ~ChromeTraceText() = default;

  void event(const TraceEvent& e);
  // rank_numbers[pid]: the global rank process pid shows. Hands over the rest of the text.
  void finish(const std::vector<int>& rank_numbers);

 private:
  void separate();
  void maybe_flush();
  void flush();

  const TracePieceSink& put_;
  std::string text_;
  bool first_ = true;
};

// The global rank of each pipeline rank of `s` (ChromeTraceText::finish's rank_numbers).
[[nodiscard]] std::vector<int> global_ranks(const SchedulePrediction& s);

// The trace's JSON text ({"traceEvents": [...], "displayTimeUnit": "ms"} and a newline), in order.
void chrome_trace_text(const SchedulePrediction& s, const TracePieceSink& put);
void chrome_trace_text(const ScheduleReplay& s, const TracePieceSink& put);

// A replay's trace written to PATH as core/file_io.h's write_output_file writes (atomically, FLAG naming
// the file in errors). Returns the bytes written.
std::int64_t write_chrome_trace(const std::string& flag, const std::string& path, const ScheduleReplay& s);

}  // namespace pipebench
