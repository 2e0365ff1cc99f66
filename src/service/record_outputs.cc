// SPDX-License-Identifier: Apache-2.0
#include "service/record_outputs.h"

#include "core/error.h"
#include "report/jsonl_writer.h"
#include "report/nccl_tests_json_writer.h"
#include "report/prometheus_writer.h"
#include "report/rank_directory.h"
#include "service/nccl_tests_mode.h"

namespace pipebench {
namespace {

std::unique_ptr<RecordSink> open_nccl_tests_json(const std::string& path, const RecordOutputContext& c) {
  return std::make_unique<NcclTestsJsonWriter>(path, nccl_tests_json_head(c.config, c.backend, c.system, c.world),
                                               c.min_busbw_gbps);
}

std::unique_ptr<RecordSink> open_jsonl(const std::string& path, const RecordOutputContext& c) {
  return std::make_unique<JsonlWriter>(path, RankDirectory(c.system.devices));
}

std::unique_ptr<RecordSink> open_prometheus(const std::string& path, const RecordOutputContext& c) {
  return std::make_unique<PrometheusWriter>(path, RankDirectory(c.system.devices));
}

}  // namespace

const std::vector<RecordOutput>& record_outputs() {
  static const std::vector<RecordOutput> rows = {
      {"--json", "--json", "write the results JSON here (record by record)", &BenchOutputs::json_path, nullptr},
      {"--csv", "--csv", "write one CSV line per record here", &BenchOutputs::csv_path, nullptr},
      {"-J", "-J,--output_file", "write nccl-tests' JSON (version 3) here (one --op)",
       &BenchOutputs::nccl_tests_json_path, open_nccl_tests_json, true},
      {"--jsonl", "--jsonl", "append one JSON object per record to this file (JSON Lines)", &BenchOutputs::jsonl_path,
       open_jsonl},
      {"--prometheus", "--prometheus",
       "write the records as a node-exporter text file here (replaced after every record)",
       &BenchOutputs::prometheus_path, open_prometheus},
  };
  return rows;
}

void add_record_output_options(CLI::App& sub, BenchOutputs& outputs, bool with_one_op) {
  for (const RecordOutput& r : record_outputs()) {
    if (with_one_op || !r.one_op) sub.add_option(r.names, outputs.*r.path, r.help);
  }
}

std::vector<FileArg> record_output_files(const BenchOutputs& outputs) {
  std::vector<FileArg> files;
  for (const RecordOutput& r : record_outputs()) files.push_back({r.flag, outputs.*r.path});
  return files;
}

void open_record_outputs(ReportSession& report, const RecordOutputContext& context) {
  std::string error;
  if (context.world.rank() == 0) {
    try {
      for (const RecordOutput& r : record_outputs()) {
        const std::string& path = context.config.outputs.*r.path;
        if (r.open && !path.empty()) report.add_sink(r.open(path, context));
      }
    } catch (const Error& e) {
      error = e.what();
    }
  }
  if (!context.world.all(error.empty())) throw UsageError(error);
}

}  // namespace pipebench
