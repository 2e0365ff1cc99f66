// SPDX-License-Identifier: Apache-2.0
// Open MPI's banners after pipebench's error line, left out (see mpirun_banner_filter.h).
#include "launch/mpirun_banner_filter.h"

#include <cctype>

namespace pipebench {
namespace {

// Open MPI frames each help message (opal_show_help) with a line of 74 dashes; 20 or more and nothing
// else is taken as one.
bool dashes(std::string_view line) {
  if (!line.empty() && line.back() == '\n') line.remove_suffix(1);
  return line.size() >= 20 && line.find_first_not_of('-') == std::string_view::npos;
}

// pipebench's error line (main.cc); its warnings ("pipebench: warning: ...") are not errors.
bool pipebench_error(std::string_view line) {
  return line.rfind("pipebench: ", 0) == 0 && line.rfind("pipebench: warning", 0) != 0;
}

// A note of Open MPI's own, "[host:pid] ..." ("[vm:27213] [[1715,0],0] ORTE_ERROR_LOG: ...", "[vm:1234] 1
// more process has sent help message help-mpi-api.txt / mpi-abort").
bool open_mpi_note(std::string_view line) {
  const std::size_t close = line.find("] ");
  const std::size_t colon = line.rfind(':', close);
  if (line.empty() || line[0] != '[' || close == std::string_view::npos || colon == std::string_view::npos ||
      colon + 1 >= close) {
    return false;
  }
  for (std::size_t i = colon + 1; i < close; ++i) {
    if (!std::isdigit(static_cast<unsigned char>(line[i]))) return false;
  }
  return true;
}

}  // namespace

void MpirunBannerFilter::feed(std::string_view bytes) {
  pending_.append(bytes);
  std::size_t start = 0;
  for (std::size_t nl = pending_.find('\n'); nl != std::string::npos; nl = pending_.find('\n', start)) {
    line(pending_.substr(start, nl + 1 - start));
    start = nl + 1;
  }
  pending_.erase(0, start);
}

void MpirunBannerFilter::line(const std::string& text) {
  const bool frame = dashes(text);
  if (in_banner_ || frame || open_mpi_note(text)) {
    held_ += text;
    if (frame) in_banner_ = !in_banner_;
    if (held_.size() > kMaxHeldBytes && !in_banner_) {
      if (!error_seen_) write_(held_);
      held_.clear();
    }
    return;
  }
  if (pipebench_error(text)) error_seen_ = true;
  write_(text);
}

void MpirunBannerFilter::finish() {
  if (in_banner_) {  // a line without its line feed inside a banner is the banner's
    held_ += pending_;
    pending_.clear();
  }
  if (!error_seen_) write_(held_);
  if (!pending_.empty()) write_(pending_);
  held_.clear();
  pending_.clear();
  in_banner_ = false;
}

}  // namespace pipebench
