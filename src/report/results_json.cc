// SPDX-License-Identifier: Apache-2.0
// Results JSON writer.
#include "report/results_json.h"

#include "core/error.h"
#include "core/file_io.h"

namespace pipebench {

nlohmann::json record_to_json(const ResultRecord& r) {
  nlohmann::json j = {
      {"op", r.op},
      {"backend", r.backend},
      {"nranks", r.nranks},
      {"ranks", r.ranks},
      {"dtype", r.dtype},
      {"redop", r.redop},
      {"root", r.root},
      {"size_bytes", r.size_bytes},
      {"count", r.count},
      {"in_place", r.in_place},
      {"time_us", r.time_us},
      {"algbw_gbps", r.algbw_gbps},
      {"busbw_gbps", r.busbw_gbps},
      {"wrong", r.wrong < 0 ? nlohmann::json(nullptr) : nlohmann::json(r.wrong)},
      {"stats",
       {{"samples", r.stats.samples},
        {"min_us", r.stats.min_us},
        {"median_us", r.stats.median_us},
        {"mean_us", r.stats.mean_us},
        {"p95_us", r.stats.p95_us},
        {"max_us", r.stats.max_us},
        {"stddev_us", r.stats.stddev_us}}},
      {"ops_per_batch", r.ops_per_batch},
      {"warmup", r.warmup},
      {"graph", r.graph},
      {"class", r.link_class.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.link_class)},
  };
  if (!r.pairs.empty()) {
    nlohmann::json pairs = nlohmann::json::array();
    for (const auto& p : r.pairs) pairs.push_back({p.src, p.dst});
    j["pairs"] = pairs;
    j["bidirectional"] = r.bidirectional;
  }
  if (!r.plan_ids.empty()) j["plan_ids"] = r.plan_ids;
  if (!r.error.empty()) j["error"] = r.error;
  return j;
}

void write_file_atomically(const std::string& path, const std::string& text) { write_output_file("", path, text); }

ResultsJson::ResultsJson(std::string path, nlohmann::json header) : path_(std::move(path)), doc_(std::move(header)) {
  doc_["schema"] = kResultsSchema;
  doc_["records"] = nlohmann::json::array();
  write();
}

void ResultsJson::add(const ResultRecord& r) {
  doc_["records"].push_back(record_to_json(r));
  write();
}

void ResultsJson::set_field(const std::string& key, nlohmann::json value) {
  doc_[key] = std::move(value);
  write();
}

void ResultsJson::write() const { write_file_atomically(path_, doc_.dump(2) + "\n"); }

}  // namespace pipebench
