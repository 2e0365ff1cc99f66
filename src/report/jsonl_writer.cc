// SPDX-License-Identifier: Apache-2.0
// One JSON object per line per record.
#include "report/jsonl_writer.h"

#include <cstdlib>
#include <nlohmann/json.hpp>

#include "io/results_io.h"

namespace pipebench {

JsonlWriter::JsonlWriter(const std::string& path, RankDirectory ranks)
    : out_("--jsonl", path, /*append=*/true), ranks_(std::move(ranks)) {
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
