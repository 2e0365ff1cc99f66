// SPDX-License-Identifier: Apache-2.0
// Progress lines on stderr.
#include "harness/progress.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>

namespace pipebench {
namespace {

constexpr double kRedrawSeconds = 0.1;      // terminal: at most ten redraws a second
constexpr double kPlainLineSeconds = 10.0;  // elsewhere: at most one line every ten seconds

}  // namespace

double Progress::steady_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

bool Progress::stderr_is_tty() { return ::isatty(STDERR_FILENO) == 1; }

std::string Progress::duration_text(double seconds) {
  const auto s = static_cast<long long>(std::llround(std::max(0.0, seconds)));
  char buf[64];
  if (s < 90) {
    std::snprintf(buf, sizeof buf, "%lld s", s);
  } else if (s < 90 * 60) {
    std::snprintf(buf, sizeof buf, "%lld min %02lld s", s / 60, s % 60);
  } else {
    std::snprintf(buf, sizeof buf, "%lld h %02lld min", s / 3600, (s / 60) % 60);
  }
  return buf;
}

Progress::Progress(std::ostream& out, bool tty, std::string unit, std::int64_t total, Clock clock)
    : out_(out), tty_(tty), unit_(std::move(unit)), total_(total), clock_(std::move(clock)) {
  start_s_ = clock_();
  last_s_ = start_s_;
}

Progress::~Progress() { clear(); }

bool Progress::due(double now, bool last) const {
  if (tty_) return last || !drawn_ || now - last_s_ >= kRedrawSeconds;
  if (last) return printed_ || now - start_s_ >= kPlainLineSeconds;
  return now - last_s_ >= kPlainLineSeconds;
}

void Progress::update(std::int64_t done, const std::string& label) {
  const double now = clock_();
  const bool last = done >= total_;
  if (!due(now, last)) return;
  std::string line = "pipebench: " + unit_ + " " + std::to_string(done) + " of " + std::to_string(total_);
  if (!label.empty()) line += " (" + label + ")";
  const double elapsed = now - start_s_;
  if (last) {
    line += ", done in " + duration_text(elapsed);
  } else if (done > 0) {
    // The mean time of the units so far times the units left (units of unequal cost make this rough).
    const double left = elapsed / static_cast<double>(done) * static_cast<double>(total_ - done);
    line += ", about " + duration_text(left) + " left";
  }
  last_s_ = now;
  if (tty_) {
    out_ << "\r\x1b[K" << line << std::flush;
    drawn_ = true;
  } else {
    out_ << line << "\n" << std::flush;
    printed_ = true;
  }
}

void Progress::clear() {
  if (!drawn_) return;
  out_ << "\r\x1b[K" << std::flush;
  drawn_ = false;
}

void ProgressSink::add(const ResultRecord& r) {
  progress_.clear();
  next_.add(r);
  if (!is_table_row(r)) return;  // --split: a group's own record of a point already counted
  progress_.update(++done_, r.op + " " + std::to_string(r.size_bytes) + " B");
}

void ProgressSink::end_op() {
  progress_.clear();
  next_.end_op();
}

void ProgressSink::finish() {
  progress_.clear();
  next_.finish();
}

}  // namespace pipebench
