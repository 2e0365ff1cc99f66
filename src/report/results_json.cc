// SPDX-License-Identifier: Apache-2.0
// Results JSON writer: the records are the growing array of a JsonArrayFile.
#include "report/results_json.h"

namespace pipebench {

ResultsJson::ResultsJson(std::string path, const ResultsHeader& header)
    : doc_(results_header(header)), file_("", std::move(path), "records", 2, [this] {
        return doc_.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
      }) {}

void ResultsJson::add(const ResultRecord& r) {
  if (!is_measurement(r)) return;  // --split: the groups' own records are kept, not the row over all
  file_.append(record_to_json(r).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

void ResultsJson::finish() { file_.rewrite(true); }

void ResultsJson::set_header(const ResultsHeader& header) {
  doc_ = results_header(header);
  file_.rewrite(file_.final_layout());
}

}  // namespace pipebench
