// SPDX-License-Identifier: Apache-2.0
// The results file sink: records as io/results_io.h writes them (pipebench.results/1). The whole file
// is rewritten after every record through a temporary file and rename(2), so a run that dies keeps
// every record it finished and never leaves a half-written file.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "core/file_io.h"
#include "report/sink.h"

namespace pipebench {

// Writes `text` to path atomically (a temporary file, then rename), only to a regular file or a new path:
// core/file_io.h's write_output_file. Throws UsageError (device, FIFO, directory, link) or Error.
void write_file_atomically(const std::string& path, const std::string& text);

class ResultsJson final : public RecordSink {
 public:
  // header: tool_version, created_utc, system, config, ...; "records" is added here.
  // Writes the file at once (with no records), so a bad path fails before anything is measured.
  ResultsJson(std::string path, nlohmann::json header);
  void add(const ResultRecord& r) override;
  // Sets a top-level field (e.g. the link state seen during the run) and rewrites the file.
  void set_field(const std::string& key, nlohmann::json value);

 private:
  void write() const;
  std::string path_;
  nlohmann::json doc_;
};

}  // namespace pipebench
