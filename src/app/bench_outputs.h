// SPDX-License-Identifier: Apache-2.0
// BenchOutputs: the files bench writes its records to. Apart from the sweep and its measurement
// (harness/), because the writers are app's and report's: the harness hands records to a RecordSink
// and never learns a path.
#pragma once

#include <string>

namespace pipebench {

struct BenchOutputs {
  std::string json_path;             // --json
  std::string csv_path;              // --csv
  std::string nccl_tests_json_path;  // -J: nccl-tests' JSON (one op)
  std::string jsonl_path;            // --jsonl: one JSON object per record, appended
  std::string prometheus_path;       // --prometheus: node-exporter text file, replaced after every record
};

}  // namespace pipebench
