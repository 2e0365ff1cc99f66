// SPDX-License-Identifier: Apache-2.0
// Job view of a trace file, read back.
#include "io/trace_job_io.h"

#include <cmath>

#include "io/json_fields.h"

namespace pipebench {
namespace {

using json = nlohmann::json;

// A share of a span: finite, in [0, 1] (1e-9 for the rounding of the writer's divisions).
double share(const JsonFields& f, const json& parent, const std::string& path, const std::string& key) {
  const double v = f.get_double(parent, path, key);
  if (!std::isfinite(v) || v < 0 || v > 1 + 1e-9) f.fail(JsonFields::join(path, key), "is not a share in [0, 1]");
  return v;
}

std::string opt_text(const JsonFields& f, const json& parent, const std::string& path, const std::string& key) {
  return f.or_null(parent, path, key, &JsonFields::get_string).value_or("");
}

TraceJobRank read_rank(const JsonFields& f, const json& r, const std::string& p) {
  if (!r.is_object()) f.fail(p, "is not an object");
  TraceJobRank out;
  out.rank = f.get_int(r, p, "rank");
  if (out.rank < 0) f.fail(JsonFields::join(p, "rank"), "is negative");
  out.rank_source = f.get_string(r, p, "rank_source");
  out.file = f.get_string(r, p, "file");
  out.source = f.get_string(r, p, "source");
  out.device = f.get_int(r, p, "device");
  out.start_us = f.get_non_negative<double>(r, p, "start_us");
  out.span_us = f.get_non_negative<double>(r, p, "span_us");
  out.compute_share = share(f, r, p, "compute_share");
  out.comm_share = share(f, r, p, "comm_share");
  out.overlap_share = share(f, r, p, "overlap_share");
  out.idle_share = share(f, r, p, "idle_share");
  out.comm_overlap_ratio = f.or_null(r, p, "comm_overlap_ratio", share);
  out.memcpy_count = f.get_non_negative<std::int64_t>(r, p, "memcpy_count");
  out.memset_count = f.get_non_negative<std::int64_t>(r, p, "memset_count");
  out.iterations = f.get_non_negative<std::int64_t>(r, p, "iterations");
  out.iterations_source = f.get_string(r, p, "iterations_source");
  out.iteration_ms = f.get_non_negative<double>(r, p, "iteration_ms");
  out.slowest = f.get_bool(r, p, "slowest");
  out.waits_most = f.get_bool(r, p, "waits_most");
  out.damage = opt_text(f, r, p, "damage");
  return out;
}

TraceJobAlignment read_alignment(const JsonFields& f, const json& a) {
  const std::string p = "alignment";
  TraceJobAlignment out;
  out.method = f.get_string(a, p, "method");
  out.anchor = opt_text(f, a, p, "anchor");
  out.note = opt_text(f, a, p, "note");
  out.uncertainty_us = f.or_null(a, p, "uncertainty_us", &JsonFields::get_non_negative<double>);
  out.checked_runs = f.get_int(a, p, "checked_runs");
  out.job_span_us = f.get_non_negative<double>(a, p, "job_span_us");
  out.missing_ranks = f.get_ints(a, p, "missing_ranks");
  out.slowest_rank = f.get_int(a, p, "slowest_rank");
  out.most_waiting_rank = f.get_int(a, p, "most_waiting_rank");
  return out;
}

RankShares read_shares(const JsonFields& f, const json& s, const std::string& p) {
  return {share(f, s, p, "compute_share"), share(f, s, p, "comm_share"), share(f, s, p, "overlap_share"),
          share(f, s, p, "idle_share"), f.get_non_negative<double>(s, p, "iteration_ms")};
}

JobComparison read_compare(const JsonFields& f, const json& c) {
  JobComparison out;
  out.other_inputs = f.get_strings(c, "compare", "other");
  out.ranks = f.list(c, "compare", "ranks", [](const JsonFields& f, const json& r, const std::string& p) {
    return RankDelta{f.get_int(r, p, "rank"), read_shares(f, f.object(r, p, "this"), JsonFields::join(p, "this")),
                     read_shares(f, f.object(r, p, "other"), JsonFields::join(p, "other"))};
  });
  out.only_here = f.get_ints(c, "compare", "only_this");
  out.only_other = f.get_ints(c, "compare", "only_other");
  return out;
}

ModelRank read_model_check_rank(const JsonFields& f, const json& r, const std::string& p) {
  ModelRank row;
  row.rank = f.get_int(r, p, "rank");
  row.measured_comm_share = share(f, r, p, "measured_comm_share");
  row.predicted_comm_share = f.or_null(r, p, "predicted_comm_share", share);
  row.replayed_comm_share = f.or_null(r, p, "replayed_comm_share", share);
  row.measured_iteration_ms = f.get_non_negative<double>(r, p, "measured_iteration_ms");
  row.predicted_iteration_ms = f.or_null(r, p, "predicted_iteration_ms", &JsonFields::get_non_negative<double>);
  row.replayed_iteration_ms = f.or_null(r, p, "replayed_iteration_ms", &JsonFields::get_non_negative<double>);
  row.mismatches = f.get_strings(r, p, "mismatches");
  return row;
}

ModelCheck read_model_check(const JsonFields& f, const json& m) {
  const std::string p = "model_check";
  ModelCheck out;
  out.schedule = f.get_string(m, p, "schedule");
  out.prediction_path = opt_text(f, m, p, "prediction");
  out.replay_path = opt_text(f, m, p, "replay");
  out.tolerance = f.get_non_negative<double>(m, p, "tolerance");
  out.mismatches = f.get_int(m, p, "mismatches");
  out.notes = f.get_strings(m, p, "notes");
  out.ranks = f.list(m, p, "ranks", read_model_check_rank);
  return out;
}

}  // namespace

TraceJobView trace_job_from_json(const json& j, const std::string& where) {
  const JsonFields f(where);
  TraceJobView out;
  if (j.contains("ranks")) out.ranks = f.list(j, "", "ranks", read_rank);
  if (j.contains("alignment")) out.alignment = read_alignment(f, f.object(j, "", "alignment"));
  if (j.contains("compare")) out.compare = read_compare(f, f.object(j, "", "compare"));
  if (j.contains("model_check")) out.model_check = read_model_check(f, f.object(j, "", "model_check"));
  return out;
}

}  // namespace pipebench
