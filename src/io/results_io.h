// SPDX-License-Identifier: Apache-2.0
// The results file ("schema": "pipebench.results/1", results/README.md): what bench, pairs and
// bench --plan write, read back as typed records and the parts of "system" that place ranks on GPUs, and
// the cost model predict and run make of them.
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
#include "topology/placement.h"

namespace pipebench {

inline constexpr const char* kResultsSchema = "pipebench.results/1";

// One record as the file holds it (the only writer of a record; report/results_json.h's sink calls it).
[[nodiscard]] nlohmann::json record_to_json(const ResultRecord& r);

// The file without records: `header` (tool_version, created_utc, system, config, ...) with the schema
// and an empty "records" array; the sink appends record_to_json of each record.
[[nodiscard]] nlohmann::json results_header(nlohmann::json header);

// One GPU's links at one moment (system.link_state.start/end) or the highest seen while the run went on
// (link_state_during_run). 0 (-1 for NVLink counts) = unknown.
struct LinkStateEntry {
  int gpu = -1;
  std::string bus_id;
  int pcie_gen = 0, pcie_width = 0, pcie_gen_max = 0, pcie_width_max = 0;
  int nvlinks_up = -1, nvlinks_down = -1;
};

struct SystemInfo {
  std::vector<DevicePlace> devices;
  std::vector<std::string> hosts, gpu_models;        // system.hosts, system.gpu_models
  std::map<std::string, std::string> versions;       // system.versions: nccl, cuda_runtime, mpi...
  std::optional<TopologyFile> topology;              // absent when the run could not read its topology
  std::vector<LinkStateEntry> link_start, link_end;  // system.link_state: when the run started and ended
};

struct ResultSet {
  SystemInfo system;
  std::string tool_version, created_utc;  // "" when the file has none (imported files)
  std::string source;                     // "nccl-tests" for `pipebench import nccl-tests`; "" for pipebench's own
  std::string command_line;               // "" in files written before it was recorded
  std::vector<LinkStateEntry> link_during_run;  // the highest generation and width sampled during the run
  std::vector<ResultRecord> records;
  std::optional<PassCosts> pass_costs;  // bench --plan's, on rank 0's GPU (io/pass_costs_io.h); none on host ranks
};

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
