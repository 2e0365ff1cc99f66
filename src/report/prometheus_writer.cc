// SPDX-License-Identifier: Apache-2.0
// Prometheus text exposition format (prometheus.io/docs/instrumenting/exposition_formats/): "# HELP",
// "# TYPE", then `name{label="value",...} number` lines, every sample of a metric together.
#include "report/prometheus_writer.h"

#include <cstdlib>
#include <utility>

#include "core/file_io.h"
#include "core/printf_string.h"
#include "core/utf8.h"

namespace pipebench {

std::string prometheus_label_value(const std::string& v) {
  std::string out;
  for (char c : utf8_replaced(v)) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

PrometheusWriter::PrometheusWriter(std::string path, RankDirectory ranks)
    : path_(std::move(path)), lock_("--prometheus", path_), ranks_(std::move(ranks)) {
  if (const char* job = std::getenv("SLURM_JOB_ID")) slurm_job_id_ = job;
  write_output_file("--prometheus", path_, text());
}

void PrometheusWriter::add(const ResultRecord& r) {
  if (!is_measurement(r) || !r.error.empty()) return;  // a failed point has no figures
  std::string ranks;
  for (int x : r.ranks) ranks += (ranks.empty() ? "" : ",") + std::to_string(x);
  const std::pair<const char*, std::string> labels[] = {
      {"host", ranks_.hosts(r.ranks)},
      {"gpu", ranks_.models(r.ranks)},
      {"op", r.op},
      {"dtype", r.dtype},
      {"redop", r.redop},
      {"size_bytes", std::to_string(r.size_bytes)},
      {"in_place", r.in_place ? "true" : "false"},
      {"nranks", std::to_string(r.nranks)},
      {"ranks", ranks},
      {"link_class", r.link_class},
      {"slurm_job_id", slurm_job_id_},
  };
  std::string key;
  for (const auto& [name, value] : labels) {
    if (std::string(name) == "slurm_job_id" && value.empty()) continue;  // only where set
    key += (key.empty() ? "" : ",") + std::string(name) + "=\"" + prometheus_label_value(value) + "\"";
  }
  samples_[key] = {r.busbw_gbps, r.time_us, r.wrong};
  write_output_file("--prometheus", path_, text());
}

std::string PrometheusWriter::text() const {
  const auto number = [](double v) { return std::string(printf_string("%.17g", v)); };
  std::string out =
      "# HELP pipebench_busbw_gbps Bus bandwidth of the point in GB/s (nccl-tests busbw).\n"
      "# TYPE pipebench_busbw_gbps gauge\n";
  for (const auto& [key, s] : samples_) out += "pipebench_busbw_gbps{" + key + "} " + number(s.busbw_gbps) + "\n";
  out +=
      "# HELP pipebench_time_us Time of one op of the point in microseconds (median over batches).\n"
      "# TYPE pipebench_time_us gauge\n";
  for (const auto& [key, s] : samples_) out += "pipebench_time_us{" + key + "} " + number(s.time_us) + "\n";
  out +=
      "# HELP pipebench_wrong_values_total Wrong elements the data check found, summed over ranks.\n"
      "# TYPE pipebench_wrong_values_total counter\n";
  for (const auto& [key, s] : samples_) {
    if (s.wrong >= 0) out += "pipebench_wrong_values_total{" + key + "} " + std::to_string(s.wrong) + "\n";
  }
  return out;
}

}  // namespace pipebench
