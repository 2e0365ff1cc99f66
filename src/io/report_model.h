// SPDX-License-Identifier: Apache-2.0
// The in-memory model of a qualification report: what the inputs say (results of several hosts,
// topologies, predictions, replays, a baseline), each file as the one value its reader gives, and what the
// rules found. The readers fill ReportInputs; the rule engine fills ReportOutcome; the writers read both.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "harness/record.h"
#include "io/results_io.h"
#include "io/topology_io.h"
#include "io/trace_io.h"
#include "replay/replay.h"
#include "sim/predictor.h"

namespace pipebench {

// A file read back whole as its own document, with where it came from. tool_version and command_line:
// of a document that does not carry them (a Prediction, a ReplayResult; a ResultSet and a TopologyFile do;
// a TraceFile carries its tool_version only).
template <typename Document>
struct InputFile {
  std::string path;
  Document doc;
  std::string tool_version{}, command_line{};  // "" in files from before they were recorded
};

// One point of a fleet baseline (pipebench.baseline/1, `report --make-baseline`): the bus bandwidth that
// many nodes' results reached for one op, size and hardware fingerprint.
struct FleetPoint {
  std::string op, dtype, redop;
  bool in_place = false;
  std::uint64_t size_bytes = 0;
  int nranks = 0;
  std::string link_class, gpu_model, nccl, driver;  // the fingerprint; "" = not known
  double median_gbps = 0;
  double spread_gbps = 0;  // 1.4826 x the median absolute deviation (a standard deviation for normal noise)
  double min_gbps = 0, max_gbps = 0;
  int samples = 0;
};

struct FleetBaseline {
  std::string path;
  std::vector<FleetPoint> points;
};

struct ReportInputs {
  std::string title = "pipebench qualification report";
  std::vector<InputFile<ResultSet>> results;        // pipebench.results/1 (bench, pairs, bench --plan, nccl-tests)
  std::vector<InputFile<ResultSet>> baseline;       // --baseline of results files
  std::optional<FleetBaseline> fleet;               // --baseline of a pipebench.baseline/1 file
  std::vector<InputFile<TopologyFile>> topologies;  // pipebench.topology/1
  std::vector<InputFile<Prediction>> predictions;   // pipebench.prediction/1
  std::vector<InputFile<ReplayResult>> replays;     // pipebench.replay/1
  // pipebench.trace/1: a one-profile trace (per device) or a whole job (per rank, with its comparison with
  // another run and its check against the model when `trace` wrote them: TraceFile::job).
  std::vector<InputFile<TraceFile>> traces;
  std::vector<std::string> skipped;  // "PATH: why" for files of a run folder that were not read
  double mad_k = 3.0;                // node diagnosis: K median absolute deviations
  // report --strict: a rule that was not applied fails (for harnesses that must not pass on what was not
  // checked); else it is counted apart and named in the verdict line.
  bool not_applied_fails = false;
};

// ---- outcome --------------------------------------------------------------------------------

enum class Status { kPass, kWarn, kFail };

[[nodiscard]] const char* status_name(Status s);  // "PASS", "WARN", "FAIL"

struct PointOutcome {
  std::string op;
  std::uint64_t size_bytes = 0;
  int nranks = 0;
  std::vector<int> ranks;
  bool in_place = false;  // the in-place record of a point (nccl-tests' second column group)
  std::string host;
  std::optional<double> value;  // null when the point has no value (missing from one side of a compare)
  std::optional<double> limit;
  Status status = Status::kPass;
  std::string note;  // why (e.g. "missing from the baseline", "3.4 MADs below the peers' median")
};

// The point of record r measured on `host`, as every check lists points (no value yet).
[[nodiscard]] inline PointOutcome point_of(const std::string& host, const ResultRecord& r) {
  PointOutcome p;
  p.op = r.op;
  p.size_bytes = r.size_bytes;
  p.nranks = r.nranks;
  p.ranks = r.ranks;
  p.in_place = r.in_place;
  p.host = host;
  return p;
}

struct RuleOutcome {
  std::string name;
  std::string metric;
  std::string comparison;  // "at_least", ...
  Status severity = Status::kFail;
  Status status = Status::kPass;
  std::string message;
  std::size_t checked = 0;    // points evaluated
  std::size_t offending = 0;  // of them, the points that warned or failed
  // At most kMaxRulePoints of the checked points (report/rule_engine.h): the offending ones first, the
  // rest counted in points_left_out.
  std::vector<PointOutcome> points;
  std::size_t points_left_out = 0;
  // False when the rule found nothing to check (no baseline, no topology, no measured point of its op or
  // sizes): it is "not applied", never a PASS, and `message` says why. A user's rule whose op or sizes
  // match no measured point is also WARN, so that a qualification cannot pass on a rule that checked nothing.
  bool applied = true;
};

// "NOT APPLIED" for a rule that was not applied and did not warn, else status_name(r.status).
[[nodiscard]] const char* rule_state_name(const RuleOutcome& r);

// One point of a baseline compare (Google Benchmark compare.py's table: old, new, ratio).
struct ComparedPoint {
  std::string key;  // "all_reduce float sum 1M n=8 ranks=0-7 host"
  std::string host;
  std::string op;
  std::uint64_t size_bytes = 0;
  std::optional<double> old_value, new_value;
  double ratio = 0;      // new / old; 0 when one side is missing
  bool changed = false;  // beyond both the percentage and the two runs' spread
  bool worse = false;    // changed in the metric's bad direction
};

// Per host of the node diagnosis.
struct HostDiagnosis {
  std::string host;
  std::size_t points = 0;
  std::size_t outliers = 0;
  double worst_mads = 0;    // largest deviation below the peers, in MADs
  std::string worst_point;  // the point of that deviation
};

struct ReportOutcome {
  Status verdict = Status::kPass;
  std::size_t passed = 0, warned = 0, failed = 0;  // rules (a rule that was not applied is not among passed)
  std::size_t not_applied = 0;                     // rules not applied that did not warn
  std::vector<RuleOutcome> rules;                  // failing first, then warnings, then passes
  std::vector<ComparedPoint> compared;             // with --baseline
  std::string compare_metric;
  std::vector<HostDiagnosis> hosts;  // with several hosts
  std::string diagnosis_metric;
  double stability_limit = 1.2;   // p95/median above this marks a point unstable (the rules' limit)
  double stability_floor_us = 0;  // ... unless its p95 - median is below this (the rules' noise floor)
};

// The verdict line: "PASS: 6 passed", "WARN: 1 warned, 3 passed" (only counts that are not 0, failing
// first) where every rule was applied; else what was not applied comes with the verdict, each rule with why:
// "PASS on 3 of 6 rules; not applied: links-at-max, busbw-vs-link (no topology ...); stable-points (...)",
// "FAIL on 4 of 6 rules (2 failed, 2 passed); not applied: ...", "NO CHECKS on 0 of 6 rules; not applied:
// ..." where none was (a prediction alone); with --strict "; --strict: a rule not applied fails" at the end.
[[nodiscard]] std::string verdict_line(const ReportOutcome& out);
// True when at least one rule was applied or warned: a verdict that judged something.
[[nodiscard]] bool verdict_judged(const ReportOutcome& out);

}  // namespace pipebench
