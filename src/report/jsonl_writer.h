// SPDX-License-Identifier: Apache-2.0
// JsonlWriter (--jsonl FILE): one JSON object per finished record, appended to the file a whole line at a
// time as the record finishes (JSON Lines, what log shippers and dashboards tail). Each object is the
// record as the results file has it (io/results_io record_to_json) plus where it ran: host, gpu,
// link_class, and slurm_job_id when SLURM_JOB_ID is set. Under --split each group's record is a line.
#pragma once

#include <string>

#include "core/file_io.h"
#include "harness/sink.h"
#include "report/rank_directory.h"

namespace pipebench {

class JsonlWriter final : public RecordSink {
 public:
  // Opens PATH for appending (a new file is created); throws UsageError for a path that may not be written.
  JsonlWriter(const std::string& path, RankDirectory ranks);
  void add(const ResultRecord& r) override;
  void finish() override { out_.close(); }

 private:
  RecordFile out_;
  RankDirectory ranks_;
  std::string slurm_job_id_;
};

}  // namespace pipebench
