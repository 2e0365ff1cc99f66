// SPDX-License-Identifier: Apache-2.0
// The results file ("schema": "pipebench.results/1", results/README.md): what bench, pairs, bench --plan
// and import write, its header one typed value written and read here, its records typed, and the cost
// model predict and run make of them.
#pragma once

#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "backend/pass_costs.h"
#include "harness/record.h"
#include "io/topology_io.h"
#include "sim/predict_request.h"
#include "topology/link_sampler.h"
#include "topology/placement.h"

namespace pipebench {

inline constexpr const char* kResultsSchema = "pipebench.results/1";

// One record as the file holds it (the only writer of a record; report/results_json.h's sink calls it).
[[nodiscard]] nlohmann::json record_to_json(const ResultRecord& r);

// One rank's device (system.devices): where it ran, and the process and device that drove it.
struct SystemDevice : DevicePlace {
  long pid = 0;
  int device = -1;    // the CUDA device; -1 for a host rank
  std::string model;  // "host memory" for a host rank
  int group = -1;     // an imported device's nccl-tests Group; -1 for pipebench's own
};

// The results' "system": every rank's device, the machine's topology and its links.
struct SystemInfo {
  std::vector<SystemDevice> devices;
  std::vector<std::string> hosts, gpu_models;      // each once: sorted, or in an import's log order
  int processes = 0;                               // 0 when the file does not say
  std::map<std::string, std::string> versions;     // nccl, cuda_runtime, mpi...
  std::map<std::string, std::string> environment;  // the allow-listed launch environment
  // The topology block as report/topology_report.h writes it, or {"error": ...} where discovery failed;
  // null: none. `topology` is what a reader takes of it; absent when the run could not read its topology.
  nlohmann::json topology_json;
  std::optional<TopologyFile> topology;
  // system.link_state: the links when the run started and ended, each written once it was read.
  std::vector<LinkStateEntry> link_start, link_end;
  bool has_link_start = false, has_link_end = false;
};

// Every field of the file but its records.
struct ResultsHeader {
  SystemInfo system;
  std::string tool_version, created_utc;  // "" when the file has none (imported files)
  std::string source;                     // "nccl-tests" for `pipebench import nccl-tests`; "" for pipebench's own
  std::string command_line;               // "" in files written before it was recorded
  nlohmann::json config;                  // the measuring command's settings; null: none
  // The highest generation and width sampled during the run; written with system.link_state's end.
  std::vector<LinkStateEntry> link_during_run;
  std::optional<PassCosts> pass_costs;  // bench --plan's, on rank 0's GPU (io/pass_costs_io.h); none on host ranks
};

struct ResultSet : ResultsHeader {
  std::vector<ResultRecord> records;
};

// The file without records, the one writer of a results header: the header's fields, the schema and an
// empty "records" array; the sink appends record_to_json of each record. Unknown link values are null.
[[nodiscard]] nlohmann::json results_header(const ResultsHeader& header);

// One device as the file holds it, and back (every process's devices are gathered through these).
void to_json(nlohmann::json& j, const SystemDevice& d);
[[nodiscard]] SystemDevice device_from_json(const nlohmann::json& j, const std::string& where);

// The system block as a reader of the file holds it: bus ids normalised, `topology` read from topology_json
// unless the run already holds it typed (UsageError naming `where` where that block does not read).
[[nodiscard]] SystemInfo system_as_read(SystemInfo s, const std::string& where);

// The most ranks a record may name (nranks 1 to this, root -1 to this - 1); megatron/layout.h's world limit.
inline constexpr int kMaxRecordRanks = 1 << 20;

// One record; `where` names it in messages. op, ranks, size_bytes and time_us are required. Every number
// is checked against its range, naming the field: sizes are integers 0 to 2^63-1, times and bandwidths
// finite and >= 0, nranks >= 1, wrong >= 0 or null (not checked).
[[nodiscard]] ResultRecord record_from_json(const nlohmann::json& j, const std::string& where);

// Throws UsageError "<where>: not a pipebench.results/1 file" for another schema, and one naming the
// field for a missing or mistyped one.
[[nodiscard]] ResultSet results_from_json(const nlohmann::json& j, const std::string& where);

// Reads a results file named by `flag` ("--table"); messages name the flag and the file.
[[nodiscard]] ResultSet load_results(const std::string& flag, const std::string& path);

// Ranks placed on their hosts and on the GPUs of the embedded topology (the devices of its host joined to
// its GPUs by bus id); ranks of two hosts are NET to each other. No rank is placed without a topology.
[[nodiscard]] Placement place_ranks(const ResultSet& results);

// A results file's records on their placed ranks, as a prediction's costs (sim/predict_request.h): `predict
// --table`, run's and replay's prediction. An nccl-tests import (its "source") stands for every group and
// is placed nowhere. `source` names the table in messages.
[[nodiscard]] MeasuredTable measured_table(ResultSet results, const std::string& source);

}  // namespace pipebench
