// SPDX-License-Identifier: Apache-2.0
// PrometheusWriter (--prometheus FILE): the records as a node-exporter textfile-collector file (Prometheus
// text exposition format 0.0.4), replaced atomically after every record so the collector never reads half
// a file. Metrics, unit in the name: pipebench_busbw_gbps and pipebench_time_us (gauges),
// pipebench_wrong_values_total (counter; records whose data was not checked have none). Labels: host, gpu,
// op, dtype, redop, size_bytes, in_place, nranks, ranks, link_class, and slurm_job_id when SLURM_JOB_ID is
// set. A point measured again (-N) replaces its sample; under --split each group's record is a sample.
#pragma once

#include <map>
#include <string>

#include "core/output_lock.h"
#include "harness/sink.h"
#include "report/rank_directory.h"

namespace pipebench {

// A label value in the text format: backslash, double quote and newline escaped, and each byte that is not
// UTF-8 (the format's encoding; a collector refuses the file) written as U+FFFD.
[[nodiscard]] std::string prometheus_label_value(const std::string& v);

class PrometheusWriter final : public RecordSink {
 public:
  // Checks PATH may be written (throws UsageError) and writes the file with no samples yet.
  PrometheusWriter(std::string path, RankDirectory ranks);
  void add(const ResultRecord& r) override;

  // The file's text for the records so far.
  [[nodiscard]] std::string text() const;

 private:
  struct Sample {
    double busbw_gbps = 0, time_us = 0;
    long long wrong = -1;
  };
  std::string path_;
  OutputLock lock_;  // one writer per file (core/output_lock.h)
  RankDirectory ranks_;
  std::string slurm_job_id_;
  std::map<std::string, Sample> samples_;  // by label set, in label order
};

}  // namespace pipebench
