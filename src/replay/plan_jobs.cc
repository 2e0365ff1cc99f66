// SPDX-License-Identifier: Apache-2.0
// Plan -> per-rank jobs. The compute model is predict's (sim/predictor.cc): per layer and microbatch
// fwd/bwd ms, or the layer's FLOPs at --tflops, plus the output layer's logits GEMM on the last stage.
#include "replay/plan_jobs.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "core/error.h"
#include "megatron/plan.h"
#include "sim/schedules.h"

namespace pipebench {
namespace {

SimTime ms_to_ns(double ms) { return static_cast<SimTime>(std::llround(ms * 1e6)); }

// Narayanan et al. 2021 eq. 3 with GQA and swiglu, as predict computes it (sim/predictor.cc).
double layer_fwd_flops(const nlohmann::json& model, const nlohmann::json& layout) {
  const double h = model.at("hidden_size").get<double>(), f = model.at("ffn_hidden_size").get<double>();
  const double b = model.at("micro_batch_size").get<double>();
  const double s = model.at("seq_length").get<double>() / layout.at("cp").get<double>();
  const double heads = model.at("num_attention_heads").get<double>();
  const double groups = model["num_query_groups"].is_null() ? heads : model["num_query_groups"].get<double>();
  const double k = h / heads;
  const double mlp = model.value("swiglu", false) ? 3 : 2;
  const double t = layout.at("tp").get<double>();
  return (2 * b * s * (h * (h + 2 * groups * k) + h * h + mlp * h * f) + 4 * b * s * s * h) / t;
}

bool usable(double x) { return std::isfinite(x) && x >= 0; }

void resolve_compute(const nlohmann::json& plan, const ComputeOptions& c, PlanJobs& out, double* out_layer_ms) {
  if (!usable(c.fwd_ms_per_layer) || !usable(c.bwd_ms_per_layer) || !usable(c.tflops) || !usable(c.optimizer_ms)) {
    throw UsageError("--fwd-ms-per-layer/--bwd-ms-per-layer/--tflops/--optimizer-ms: must be finite and not negative");
  }
  const auto& model = plan.at("model");
  const auto& layout = plan.at("layout");
  if (c.fwd_ms_per_layer > 0) {
    out.fwd_ms_per_layer = c.fwd_ms_per_layer;
    out.compute_source = "--fwd-ms-per-layer";
  } else if (c.tflops > 0) {
    out.fwd_ms_per_layer = layer_fwd_flops(model, layout) / (c.tflops * 1e12) * 1e3;
    out.compute_source = "FLOPs of the layer / --tflops " + std::to_string(c.tflops);
  } else {
    throw UsageError("compute time: give --fwd-ms-per-layer MS (> 0), --tflops T (> 0) or --measure-compute");
  }
  out.bwd_ms_per_layer = c.bwd_ms_per_layer > 0 ? c.bwd_ms_per_layer : 2 * out.fwd_ms_per_layer;
  const double h = model.at("hidden_size").get<double>();
  const double out_flops = 2 * model.at("micro_batch_size").get<double>() * model.at("seq_length").get<double>() /
                           layout.at("cp").get<double>() * h * model.at("padded_vocab_size").get<double>() /
                           layout.at("tp").get<double>();
  *out_layer_ms = out.fwd_ms_per_layer / std::max(layer_fwd_flops(model, layout), 1.0) * out_flops;
}

bool selected(const std::string& filter, const std::string& name, int v) {
  if (filter.empty() || filter == "all") return true;
  return filter == name || filter == name + ":v" + std::to_string(v);
}

RankJob job_for(const nlohmann::json& plan, const nlohmann::json& s, const PlanJobs& pj, double out_layer_ms,
                const ComputeOptions& c, int global_rank, const std::vector<int>& pp_ranks) {
  const auto& layout = plan.at("layout");
  RankJob job;
  job.name = s.at("name").get<std::string>();
  job.v = s.at("v").get<int>();
  job.pipeline_ranks = pp_ranks;
  job.pipeline_rank = static_cast<int>(std::find(pp_ranks.begin(), pp_ranks.end(), global_rank) - pp_ranks.begin());
  ScheduleSpec spec;
  spec.p = layout.at("pp").get<int>();
  spec.v = job.v;
  spec.m = layout.at("microbatches").get<std::int64_t>();
  spec.kind = job.name == "gpipe" ? ScheduleKind::kGpipe
              : job.v > 1         ? ScheduleKind::kInterleaved
                                  : ScheduleKind::kOneFOneB;
  spec.overlap_p2p = plan.at("model").value("overlap_p2p_communication", true);
  spec.warmup = s.at("warmup").get<std::vector<std::int64_t>>();
  MegatronArgs a;
  a.version = plan.at("model").value("megatron_version", "main") == "core_v0.9" ? MegatronVersion::kCoreV09
                                                                                : MegatronVersion::kMain;
  Layout l;
  l.pp = spec.p;
  l.microbatches = spec.m;
  l.microbatch_group = layout.value("microbatch_group_size", l.pp);
  spec.table = forward_table(a, l, job.v);
  const int layers_per_chunk = plan.at("model").at("num_layers").get<int>() / spec.p / job.v;
  for (int r = 0; r < spec.p; ++r) {
    std::vector<SimTime> f, b;
    for (int ch = 0; ch < job.v; ++ch) {
      const bool head = r == spec.p - 1 && ch == job.v - 1;
      f.push_back(ms_to_ns(layers_per_chunk * pj.fwd_ms_per_layer + (head ? out_layer_ms : 0)));
      b.push_back(ms_to_ns(layers_per_chunk * pj.bwd_ms_per_layer + (head ? 2 * out_layer_ms : 0)));
    }
    spec.fwd.push_back(f);
    spec.bwd.push_back(b);
  }
  for (const auto& msg : s.at("messages")) {
    if (msg.at("op") == "send") spec.p2p_bytes = std::max(spec.p2p_bytes, msg.at("bytes").get<std::int64_t>());
  }
  job.program = generate_schedule(spec)[static_cast<std::size_t>(job.pipeline_rank)];
  // After the pipeline: this rank's collectives in the plan's order (Megatron's finalize_model_grads,
  // then the optimizer's scalar all-reduces), then the optimizer step.
  for (const auto& msg : s.at("messages")) {
    if (msg.at("rank").get<int>() != global_rank || msg.at("phase").get<std::string>() != "after") continue;
    const std::string op = msg.at("op").get<std::string>();
    if (op == "send" || op == "recv") continue;
    std::vector<int> group = msg.at("group").get<std::vector<int>>();
    std::sort(group.begin(), group.end());
    Task t;
    t.kind = Task::Kind::kCollective;
    t.collective = static_cast<int>(job.collectives.size());
    job.collectives.push_back({replay_coll_op(op), group, msg.at("bytes").get<std::int64_t>(),
                               static_cast<int>(msg.at("count").get<std::int64_t>()), msg.value("what", op)});
    job.program.tasks.push_back(t);
  }
  if (c.optimizer_ms > 0) {
    Task t;
    t.kind = Task::Kind::kCompute;
    t.duration = ms_to_ns(c.optimizer_ms);
    t.name = "optimizer";
    job.program.tasks.push_back(t);
  }
  return job;
}

void add_groups(const nlohmann::json& s, std::set<std::vector<int>>& groups) {
  for (const auto& msg : s.at("messages")) {
    if (msg.at("phase") != "after" || msg.at("op") == "send" || msg.at("op") == "recv") continue;
    auto g = msg.at("group").get<std::vector<int>>();
    std::sort(g.begin(), g.end());
    groups.insert(g);
  }
}

}  // namespace

ReplayCollOp replay_coll_op(const std::string& op) {
  if (op == "all_reduce") return ReplayCollOp::kAllReduce;
  if (op == "all_gather") return ReplayCollOp::kAllGather;
  if (op == "reduce_scatter") return ReplayCollOp::kReduceScatter;
  if (op == "broadcast") return ReplayCollOp::kBroadcast;
  throw UsageError("--plan: unknown collective op '" + op + "'");
}

PlanJobs plan_jobs(const nlohmann::json& plan, const ComputeOptions& compute, int global_rank,
                   const std::string& schedule) {
  PlanJobs out;
  double out_layer_ms = 0;
  resolve_compute(plan, compute, out, &out_layer_ms);
  std::vector<int> pp_ranks;
  for (const auto& g : plan.at("groups").at("pp")) {
    const auto ranks = g.get<std::vector<int>>();
    if (std::find(ranks.begin(), ranks.end(), global_rank) != ranks.end()) pp_ranks = ranks;
  }
  if (pp_ranks.empty())
    throw UsageError("--plan: rank " + std::to_string(global_rank) + " is in no pipeline group of the plan");
  std::set<std::vector<int>> groups;
  const nlohmann::json* base = nullptr;
  std::string names;
  for (const auto& s : plan.at("schedules")) {
    const std::string name = s.at("name").get<std::string>();
    const int v = s.at("v").get<int>();
    names += (names.empty() ? "" : ", ") + name + (v > 1 ? ":v" + std::to_string(v) : "");
    if (name == "1f1b") base = &s;
    if (!selected(schedule, name, v)) continue;
    out.jobs.push_back(job_for(plan, s, out, out_layer_ms, compute, global_rank, pp_ranks));
    add_groups(s, groups);
  }
  if (base && (schedule.empty() || schedule == "all" || schedule == "gpipe")) {
    add_groups(*base, groups);
    nlohmann::json gpipe = *base;
    gpipe["name"] = "gpipe";
    out.jobs.push_back(job_for(plan, gpipe, out, out_layer_ms, compute, global_rank, pp_ranks));
    out.jobs.back().reference = true;
  }
  if (out.jobs.empty()) {
    throw UsageError("--schedule " + schedule + ": not a schedule of this plan (it has " + names +
                     ", gpipe; valid v: " + plan.value("valid_v", nlohmann::json::array()).dump() + ")");
  }
  out.all_groups.assign(groups.begin(), groups.end());
  return out;
}

}  // namespace pipebench
