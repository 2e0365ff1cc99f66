// SPDX-License-Identifier: Apache-2.0
// Streaming Chrome trace writer.
#include "trace/chrome_trace_writer.h"

#include <algorithm>
#include <cstdio>
#include <iterator>
#include <sstream>

#include "core/error.h"
#include "core/file_io.h"
#include "trace/profile.h"

namespace pipebench {

ChromeActivities parse_activities(const std::string& flag, const std::string& text) {
  ChromeActivities a{false, false, false, false};
  std::stringstream in(text);
  std::string item;
  bool any = false;
  const std::pair<const char*, bool ChromeActivities::*> kinds[] = {{"kernel", &ChromeActivities::kernel},
                                                                    {"nvtx", &ChromeActivities::nvtx},
                                                                    {"nvtx-kernel", &ChromeActivities::nvtx_kernel},
                                                                    {"cuda-api", &ChromeActivities::cuda_api}};
  while (std::getline(in, item, ',')) {
    const auto* kind = std::find_if(std::begin(kinds), std::end(kinds), [&](const auto& k) { return item == k.first; });
    if (kind == std::end(kinds))
      throw UsageError(flag + " " + text + ": '" + item + "' is not one of kernel, nvtx, nvtx-kernel, cuda-api");
    a.*(kind->second) = true;
    any = true;
  }
  if (!any) throw UsageError(flag + ": empty list (choose from kernel, nvtx, nvtx-kernel, cuda-api)");
  return a;
}

ChromeTraceWriter::ChromeTraceWriter(const std::string& flag, const std::string& path, nlohmann::json other_data)
    : flag_(flag), path_(path), tmp_path_(path + ".tmp") {
  require_output_path(flag, path);
  out_.open(tmp_path_, std::ios::trunc);
  if (!out_) throw UsageError(flag + " " + path + ": cannot be written");
  out_ << "{\"displayTimeUnit\": \"ms\", \"otherData\": " << other_data.dump() << ",\n\"traceEvents\": [";
}

ChromeTraceWriter::~ChromeTraceWriter() {
  if (finished_) return;
  try {
    finish();  // keep what was converted when the reader stopped early
  } catch (...) {
  }
}

void ChromeTraceWriter::emit(const nlohmann::json& event) {
  out_ << (events_ == 0 ? "\n" : ",\n") << event.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  ++events_;
}

void ChromeTraceWriter::complete(std::string_view cat, std::string_view name, std::int64_t pid, std::int64_t tid,
                                 std::int64_t start_ns, std::int64_t duration_ns, const nlohmann::json& args) {
  nlohmann::json e = {{"ph", "X"},
                      {"cat", cat},
                      {"name", name},
                      {"pid", pid},
                      {"tid", tid},
                      {"ts", ns_to_us(start_ns)},
                      {"dur", ns_to_us(duration_ns < 0 ? 0 : duration_ns)}};
  if (!args.is_null()) e["args"] = args;
  emit(e);
}

void ChromeTraceWriter::instant(std::string_view cat, std::string_view name, std::int64_t pid, std::int64_t tid,
                                std::int64_t time_ns) {
  emit({{"ph", "i"}, {"s", "t"}, {"cat", cat}, {"name", name}, {"pid", pid}, {"tid", tid}, {"ts", ns_to_us(time_ns)}});
}

void ChromeTraceWriter::process(std::int64_t pid, const std::string& name, std::int64_t sort_index) {
  processes_.try_emplace(pid, name, sort_index);
}

void ChromeTraceWriter::thread(std::int64_t pid, std::int64_t tid, const std::string& name, std::int64_t sort_index) {
  threads_.try_emplace({pid, tid}, name, sort_index);
}

void ChromeTraceWriter::finish() {
  if (finished_) return;
  finished_ = true;
  auto meta = [this](const char* what, std::int64_t pid, std::int64_t tid, const char* key, const nlohmann::json& v) {
    emit({{"ph", "M"}, {"name", what}, {"pid", pid}, {"tid", tid}, {"args", {{key, v}}}});
  };
  for (const auto& [pid, v] : processes_) {
    meta("process_name", pid, 0, "name", v.first);
    meta("process_sort_index", pid, 0, "sort_index", v.second);
  }
  for (const auto& [key, v] : threads_) {
    meta("thread_name", key.first, key.second, "name", v.first);
    meta("thread_sort_index", key.first, key.second, "sort_index", v.second);
  }
  out_ << "\n]}\n";
  out_.close();
  if (!out_) throw Error(flag_ + " " + path_ + ": write failed");
  if (std::rename(tmp_path_.c_str(), path_.c_str()) != 0)
    throw Error(flag_ + " " + path_ + ": cannot rename " + tmp_path_);
}

}  // namespace pipebench
