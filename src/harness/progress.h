// SPDX-License-Identifier: Apache-2.0
// Progress of long work on stderr: "point N of M" and an estimate of the time left. On a terminal one
// line that redraws (at most ten times a second) and is erased before other output; otherwise a plain
// line at most every ten seconds, so that short runs and logs stay quiet. Nothing at all with --quiet
// (the caller then makes none). The clock and the terminal flag are injected for the tests.
#pragma once

#include <cstdint>
#include <functional>
#include <ostream>
#include <string>

#include "harness/sink.h"

namespace pipebench {

class Progress {
 public:
  using Clock = std::function<double()>;  // seconds, monotonic

  // out: where lines go (std::cerr); tty: whether out is a terminal; unit: "point", "iteration", ...
  Progress(std::ostream& out, bool tty, std::string unit, std::int64_t total, Clock clock = steady_seconds);
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  // `done` of the total are finished; label names the latest (may be empty).
  void update(std::int64_t done, const std::string& label);
  // Terminal: erases the progress line so that other output starts on a clean line.
  void clear();
  // "about 1 min 05 s left" style durations: "12 s", "3 min 05 s", "2 h 07 min".
  [[nodiscard]] static std::string duration_text(double seconds);
  [[nodiscard]] static double steady_seconds();
  // Whether standard error is a terminal.
  [[nodiscard]] static bool stderr_is_tty();

 private:
  [[nodiscard]] bool due(double now, bool last) const;

  std::ostream& out_;
  bool tty_;
  std::string unit_;
  std::int64_t total_;
  Clock clock_;
  double start_s_, last_s_;
  bool drawn_ = false;    // a terminal line is on screen
  bool printed_ = false;  // a plain line was printed
};

// A RecordSink in front of another: counts the records as points done and keeps the terminal line out of
// the way of what the next sink prints.
class ProgressSink final : public RecordSink {
 public:
  ProgressSink(RecordSink& next, Progress& progress) : next_(next), progress_(progress) {}
  void add(const ResultRecord& r) override;
  void end_op() override;
  void finish() override;

 private:
  RecordSink& next_;
  Progress& progress_;
  std::int64_t done_ = 0;
};

}  // namespace pipebench
