// SPDX-License-Identifier: Apache-2.0
// Writes a Chrome trace (trace-formats.md C3: "X" complete events, "M" metadata naming the tracks,
// timestamps in microseconds) event by event to a temporary file next to the target, renamed into
// place by finish(): the converter's memory does not grow with the profile, and a half-written file
// never takes the target's name.
#pragma once

#include <cstdint>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <string_view>
#include <utility>

namespace pipebench {

// What --activity selects.
struct ChromeActivities {
  bool kernel = true;       // kernels, one track per device and stream
  bool nvtx = true;         // NVTX ranges on their CPU thread
  bool nvtx_kernel = true;  // NVTX ranges projected onto the GPU (first to last kernel launched inside)
  bool cuda_api = true;     // CUDA runtime calls on their CPU thread
};

// "kernel,nvtx,nvtx-kernel,cuda-api" (any subset). Throws UsageError naming the flag.
[[nodiscard]] ChromeActivities parse_activities(const std::string& flag, const std::string& text);

// Track ids. GPUs get their own process ids far above OS pids, so a device never shares a process
// track with a host process; the metadata events give every track a readable name.
inline constexpr std::int64_t kGpuPidBase = 1000000000;
inline constexpr std::int64_t kNvtxOnGpuTidBase = 1000000000;  // + OS tid: NVTX ranges of a thread on a GPU

class ChromeTraceWriter {
 public:
  // Throws UsageError naming flag and path when the file cannot be created.
  ChromeTraceWriter(const std::string& flag, const std::string& path, nlohmann::json other_data);
  ~ChromeTraceWriter();
  ChromeTraceWriter(const ChromeTraceWriter&) = delete;
  ChromeTraceWriter& operator=(const ChromeTraceWriter&) = delete;

  void complete(std::string_view cat, std::string_view name, std::int64_t pid, std::int64_t tid, std::int64_t start_ns,
                std::int64_t duration_ns, const nlohmann::json& args = nullptr);
  void instant(std::string_view cat, std::string_view name, std::int64_t pid, std::int64_t tid, std::int64_t time_ns);
  // Track names (emitted once each, at finish).
  void process(std::int64_t pid, const std::string& name, std::int64_t sort_index);
  void thread(std::int64_t pid, std::int64_t tid, const std::string& name, std::int64_t sort_index);

  // Metadata, closing brackets, rename. Throws Error when the file cannot be written.
  void finish();
  [[nodiscard]] std::int64_t events() const { return events_; }

 private:
  void emit(const nlohmann::json& event);

  std::string flag_, path_, tmp_path_;
  std::ofstream out_;
  std::int64_t events_ = 0;
  bool finished_ = false;
  std::map<std::int64_t, std::pair<std::string, std::int64_t>> processes_;
  std::map<std::pair<std::int64_t, std::int64_t>, std::pair<std::string, std::int64_t>> threads_;
};

}  // namespace pipebench
