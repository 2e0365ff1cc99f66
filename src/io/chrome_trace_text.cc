// SPDX-License-Identifier: Apache-2.0
#include "io/chrome_trace_text.h"

#include <array>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <vector>

#include "core/file_io.h"

namespace pipebench {
namespace {

constexpr std::array<std::string_view, 4> kTracks = {"compute", "send", "recv", "collectives"};
// Text handed over at once: large enough that a write(2) per piece costs nothing, small against the trace.
constexpr std::size_t kPieceBytes = std::size_t{1} << 20;

// A JSON string: the name as it is where it needs no escaping (every name pipebench makes), else as
// nlohmann-json escapes it (a schedule file's names are the user's text).
void append_string(std::string& out, std::string_view s) {
  bool plain = true;
  for (const char c : s) plain = plain && c != '"' && c != '\\' && static_cast<unsigned char>(c) >= 0x20;
  if (plain) {
    out += '"';
    out += s;
    out += '"';
    return;
  }
  out += nlohmann::json(std::string(s)).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// Nanoseconds as microseconds with three decimals: exact, and the same number on every machine.
void append_micros(std::string& out, std::int64_t ns) {
  if (ns < 0) {
    out += '-';
    ns = -ns;
  }
  std::array<char, 32> digits{};
  const int n = std::snprintf(digits.data(), digits.size(), "%lld.%03lld", static_cast<long long>(ns / 1000),
                              static_cast<long long>(ns % 1000));
  out.append(digits.data(), static_cast<std::size_t>(n));
}

void append_metadata(std::string& out, std::size_t pid, std::size_t tid, std::string_view what, std::string_view name) {
  out += "{\"ph\":\"M\",\"name\":\"";
  out += what;
  out += "\",\"pid\":" + std::to_string(pid) + ",\"tid\":" + std::to_string(tid) + ",\"args\":{\"name\":";
  append_string(out, name);
  out += "}}";
}

void append_event(std::string& out, const TraceEvent& e) {
  std::size_t tid = 0;
  while (tid < kTracks.size() && kTracks[tid] != e.track) ++tid;  // an unknown track: the next thread
  out += "{\"ph\":\"X\",\"name\":";
  append_string(out, e.name);
  out += ",\"pid\":" + std::to_string(e.rank) + ",\"tid\":" + std::to_string(tid) + ",\"ts\":";
  append_micros(out, e.start);
  out += ",\"dur\":";
  append_micros(out, e.end - e.start);
  out += '}';
}

}  // namespace

ChromeTraceText::ChromeTraceText(const TracePieceSink& put) : put_(put) {
  text_.reserve(kPieceBytes + 4096);
  text_ += "{\"traceEvents\":[";
}

void ChromeTraceText::separate() {
  text_ += first_ ? "\n" : ",\n";
  first_ = false;
}

void ChromeTraceText::maybe_flush() {
  if (text_.size() >= kPieceBytes) flush();
}

void ChromeTraceText::flush() {
  if (!text_.empty()) put_(text_);
  text_.clear();
}

void ChromeTraceText::event(const TraceEvent& e) {
  separate();
  append_event(text_, e);
  maybe_flush();
}

void ChromeTraceText::finish(const std::vector<int>& rank_numbers) {
  for (std::size_t r = 0; r < rank_numbers.size(); ++r) {
    separate();
    append_metadata(text_, r, 0, "process_name", "rank " + std::to_string(rank_numbers[r]));
    for (std::size_t t = 0; t < kTracks.size(); ++t) {
      separate();
      append_metadata(text_, r, t, "thread_name", kTracks[t]);
    }
    maybe_flush();
  }
  text_ += "\n],\"displayTimeUnit\":\"ms\"}\n";
  flush();
}

std::vector<int> global_ranks(const SchedulePrediction& s) {
  std::vector<int> ranks;
  ranks.reserve(s.ranks.size());
  for (const auto& r : s.ranks) ranks.push_back(r.rank);
  return ranks;
}

void chrome_trace_text(const SchedulePrediction& s, const TracePieceSink& put) {
  ChromeTraceText text(put);
  for (const auto& e : s.sim.trace) text.event(e);
  text.finish(global_ranks(s));
}

void chrome_trace_text(const ScheduleReplay& s, const TracePieceSink& put) {
  ChromeTraceText text(put);
  std::vector<int> ranks;
  for (const auto& rank : s.timeline) {
    for (const auto& e : rank) text.event(e);
    ranks.push_back(static_cast<int>(ranks.size()));
  }
  text.finish(ranks);
}

std::int64_t write_chrome_trace(const std::string& flag, const std::string& path, const ScheduleReplay& s) {
  return write_output_file(flag, path, [&s](const TracePieceSink& put) { chrome_trace_text(s, put); });
}

}  // namespace pipebench
