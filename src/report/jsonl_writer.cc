// SPDX-License-Identifier: Apache-2.0
// One JSON object per line per record.
#include "report/jsonl_writer.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string_view>

#include "core/error.h"
#include "io/results_io.h"

namespace pipebench {
namespace {

// The longest last line read back: a record's line is kilobytes.
constexpr std::streamoff kMaxLastLineBytes = std::streamoff{1} << 20;

// Lines appended to anything but JSON Lines would leave neither (a results JSON given as --jsonl would no
// longer parse): the file must be empty or end with a whole line that is a JSON object.
void require_json_lines(const std::string& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  const std::streamoff size = in ? static_cast<std::streamoff>(in.tellg()) : 0;
  if (size <= 0) return;
  const std::streamoff tail_bytes = std::min(size, kMaxLastLineBytes + 1);
  std::string tail(static_cast<std::size_t>(tail_bytes), '\0');
  in.seekg(size - tail_bytes);
  if (!in.read(tail.data(), tail_bytes)) throw UsageError("--jsonl " + path + ": cannot be read back");
  const std::string refused = "--jsonl " + path + ": ";
  const std::string rule = "; --jsonl appends only to an empty file or to JSON Lines records (name another file)";
  if (tail.back() != '\n') throw UsageError(refused + "does not end with a whole line" + rule);
  tail.pop_back();
  const std::size_t newline = tail.find_last_of('\n');
  if (newline == std::string::npos && tail_bytes < size) {
    throw UsageError(refused + "its last line is longer than 1 MiB" + rule);
  }
  const std::string_view last = std::string_view(tail).substr(newline == std::string::npos ? 0 : newline + 1);
  if (!nlohmann::json::parse(last, nullptr, false).is_object()) {
    throw UsageError(refused + "its last line is not a JSON object" + rule);
  }
}

}  // namespace

JsonlWriter::JsonlWriter(const std::string& path, RankDirectory ranks)
    : out_("--jsonl", path, /*append=*/true), ranks_(std::move(ranks)) {
  require_json_lines(path);
  if (const char* job = std::getenv("SLURM_JOB_ID")) slurm_job_id_ = job;
}

void JsonlWriter::add(const ResultRecord& r) {
  if (!is_measurement(r)) return;  // --split: each group's own record
  nlohmann::json j = record_to_json(r);
  j["host"] = ranks_.hosts(r.ranks);
  j["gpu"] = ranks_.models(r.ranks);
  j["link_class"] = r.link_class.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.link_class);
  if (!slurm_job_id_.empty()) j["slurm_job_id"] = slurm_job_id_;
  // One write per line: a reader never sees half a record (RecordFile cuts a failed write back). Text from the
  // environment (SLURM_JOB_ID) or the hosts may hold bytes that are not UTF-8: written as U+FFFD, as in --json.
  out_.append(j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
}

}  // namespace pipebench
