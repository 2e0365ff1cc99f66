// SPDX-License-Identifier: Apache-2.0
// Results JSON writer.
#include "report/results_json.h"

#include "core/error.h"
#include "core/file_io.h"
#include "io/results_io.h"

namespace pipebench {

void write_file_atomically(const std::string& path, const std::string& text) { write_output_file("", path, text); }

ResultsJson::ResultsJson(std::string path, nlohmann::json header) : path_(std::move(path)), doc_(std::move(header)) {
  doc_ = results_header(std::move(doc_));
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
