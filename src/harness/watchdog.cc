// SPDX-License-Identifier: Apache-2.0
// Watchdog thread, checked ten times a second.
#include "harness/watchdog.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "core/error.h"

namespace pipebench {
namespace {

constexpr double kSlowLinkBytesPerSecond = 1e9;
constexpr double kOpLatencySeconds = 1e-3;
constexpr double kHeadroom = 10;
constexpr double kMinimumSeconds = 120;

std::int64_t steady_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// What the other ranks' heartbeats say after a grace: who stopped answering, or that none did. The speaker
// (the lowest rank that answered) removes the files (its abort ends every process before their
// destructors could) and speaks at once; the others wait a while longer, so that its line and abort come
// first and the job prints one line.
std::string heard_from(const Heartbeats& beats, const World& world) {
  const std::vector<std::int64_t> before = beats.read();
  std::this_thread::sleep_for(std::chrono::duration<double>(kAnswerGraceSeconds));
  const std::vector<Answer> a = answers(before, beats.read(), beats.hosts(), world.host());
  if (speaker(a) == world.rank()) {
    beats.remove_files();
  } else {
    std::this_thread::sleep_for(std::chrono::duration<double>(2 * kAnswerGraceSeconds));
  }
  return who_stopped(a, world.host(), world.where());
}

}  // namespace

double default_point_timeout_s(std::uint64_t size_bytes, std::int64_t ops) {
  const double per_op_s = kOpLatencySeconds + static_cast<double>(size_bytes) / kSlowLinkBytesPerSecond;
  return std::max(kMinimumSeconds, kHeadroom * static_cast<double>(std::max<std::int64_t>(ops, 1)) * per_op_s);
}

double point_timeout_s(double timeout_s, std::uint64_t size_bytes, std::int64_t ops) {
  return timeout_s >= 0 ? timeout_s : default_point_timeout_s(size_bytes, ops);
}

Watchdog::Watchdog(double timeout_s, const World& world, Message message) : message_(std::move(message)) {
  start_ns_ = steady_ns();
  if (timeout_s <= 0) return;
  thread_ = std::thread([this, timeout_s, &world] { watch(timeout_s, world); });
}

Watchdog::Watchdog(double timeout_s, const World& world, const std::string& label, const Heartbeats* beats)
    : Watchdog(timeout_s, world, [timeout_s, &world, label, beats](double /*elapsed_s*/) {
        char t[32];
        std::snprintf(t, sizeof t, "%g", timeout_s);
        const std::string head = "-T " + std::string(t) + ": " + label + " did not finish within " + t + " s";
        if (!beats) return head + " on " + world.where();
        return head + heard_from(*beats, world);
      }) {}

void Watchdog::restart() { start_ns_ = steady_ns(); }

void Watchdog::watch(double timeout_s, const World& world) {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!cv_.wait_for(lock, std::chrono::milliseconds(100), [this] { return done_; })) {
    const double elapsed_s = static_cast<double>(steady_ns() - start_ns_.load()) / 1e9;
    if (elapsed_s <= timeout_s) continue;
    std::fprintf(stderr, "pipebench: %s; aborting the job\n", message_(elapsed_s).c_str());
    std::fflush(stderr);
    world.abort(static_cast<int>(ExitCode::kRuntimeError));
  }
}

Watchdog::~Watchdog() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    done_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

}  // namespace pipebench
