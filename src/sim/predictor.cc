// SPDX-License-Identifier: Apache-2.0
// Prediction: compute model, task lists from the plan, simulation, verdict, break-even bandwidth.
#include "sim/predictor.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "core/error.h"
#include "core/units.h"
#include "megatron/plan.h"
#include "topology/topology.h"
#include "sim/schedules.h"

namespace pipebench {
namespace {

SimTime ms_to_ns(double ms) { return static_cast<SimTime>(std::llround(ms * 1e6)); }

// Forward FLOPs of one transformer layer and microbatch on one TP rank: 2*b*s*(h*(h+2gk) + h^2 + h*f*(2|3))
// + 4*b*s^2*h (Narayanan et al. 2021 eq. 3 with GQA and swiglu), s split over CP, matrices over TP.
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

struct Setup {
  int p = 1;
  std::int64_t m = 1;
  std::vector<int> ranks;  // pipeline group 0
  std::int64_t p2p_bytes = 0;
};

std::vector<std::pair<std::int64_t, int>> table_for(const nlohmann::json& plan, int v) {
  MegatronArgs a;
  a.version = plan.at("model").value("megatron_version", "main") == "core_v0.9" ? MegatronVersion::kCoreV09 : MegatronVersion::kMain;
  Layout l;
  l.pp = plan.at("layout").at("pp").get<int>();
  l.microbatches = plan.at("layout").at("microbatches").get<std::int64_t>();
  l.microbatch_group = plan.at("layout").value("microbatch_group_size", l.pp);
  return forward_table(a, l, v);
}

}  // namespace

PathModel paths_from_results(const nlohmann::json& results) {
  PathModel pm;
  const auto& system = results.value("system", nlohmann::json::object());
  const auto& topo = system.value("topology", nlohmann::json::object());
  if (!topo.contains("pairs") || !system.contains("devices")) return pm;
  const std::map<int, int> gpu_of_rank = rank_to_gpu(results);
  std::map<std::pair<int, int>, std::vector<std::string>> by_gpu;
  for (const auto& p : topo["pairs"]) {
    if (p.value("kind", "") != "gpu-gpu" || !p.contains("path")) continue;
    by_gpu[{p["a"].get<int>(), p["b"].get<int>()}] = p["path"].get<std::vector<std::string>>();
  }
  std::map<std::string, int> ids;
  for (const auto& [ra, ga] : gpu_of_rank) {
    for (const auto& [rb, gb] : gpu_of_rank) {
      const auto it = by_gpu.find({ga, gb});
      if (ra == rb || it == by_gpu.end()) continue;
      std::vector<int> links;
      for (const auto& name : it->second) links.push_back(ids.emplace(name, static_cast<int>(ids.size())).first->second);
      pm.links[{ra, rb}] = links;
    }
  }
  pm.link_count = ids.size();
  return pm;
}

Prediction predict(const nlohmann::json& plan, const CostModel& costs, const ComputeOptions& c, bool shared_path,
                   bool keep_trace, const std::string& filter, const PathModel* paths) {
  Prediction out;
  const auto& model = plan.at("model");
  const auto& layout = plan.at("layout");
  Setup su;
  su.p = layout.at("pp").get<int>();
  su.m = layout.at("microbatches").get<std::int64_t>();
  su.ranks = plan.at("groups").at("pp").at(0).get<std::vector<int>>();
  const int layers = model.at("num_layers").get<int>();
  if (c.fwd_ms_per_layer < 0 || c.bwd_ms_per_layer < 0 || c.tflops < 0 || c.optimizer_ms < 0 || c.comm_sm_slowdown < 0) {
    throw UsageError("--fwd-ms-per-layer/--bwd-ms-per-layer/--tflops/--optimizer-ms/--comm-sm-slowdown: must not be negative");
  }
  if (c.fwd_ms_per_layer > 0) {
    out.fwd_ms_per_layer = c.fwd_ms_per_layer;
    out.compute_source = "--fwd-ms-per-layer";
  } else if (c.tflops > 0) {
    out.fwd_ms_per_layer = layer_fwd_flops(model, layout) / (c.tflops * 1e12) * 1e3;
    out.compute_source = "FLOPs of the layer / --tflops " + std::to_string(c.tflops);
  } else {
    throw UsageError("compute time: give --fwd-ms-per-layer MS (> 0) or --tflops T (achieved TFLOP/s per GPU)");
  }
  out.bwd_ms_per_layer = c.bwd_ms_per_layer > 0 ? c.bwd_ms_per_layer : 2 * out.fwd_ms_per_layer;
  // The output layer's logits GEMM on the last stage: 2*b*s*h*V/t FLOPs forward, at the same rate.
  const double h = model.at("hidden_size").get<double>();
  const double out_layer_flops = 2 * model.at("micro_batch_size").get<double>() * model.at("seq_length").get<double>() /
                                 layout.at("cp").get<double>() * h * model.at("padded_vocab_size").get<double>() /
                                 layout.at("tp").get<double>();
  const double out_layer_ms = out.fwd_ms_per_layer / std::max(layer_fwd_flops(model, layout), 1.0) * out_layer_flops;

  std::set<std::string> sources;
  auto pair_cost = [&](const CostModel& m, int src, int dst, std::int64_t bytes) {
    std::vector<int> pair = {su.ranks[static_cast<std::size_t>(src)], su.ranks[static_cast<std::size_t>(dst)]};
    std::sort(pair.begin(), pair.end());
    const CommCost cc = m.cost("pair", pair, bytes);
    sources.insert(cc.source);
    return cc.time;
  };

  // One schedule of the plan, with P2P costs from p2p_model and everything else from `costs`.
  auto run = [&](const nlohmann::json& s, const CostModel& p2p_model, bool trace) {
    const std::string name = s.at("name").get<std::string>();
    const int v = s.at("v").get<int>();
    std::map<int, double> inside_ms;  // pipeline rank -> ms per iteration of TP/CE/broadcast collectives
    std::vector<std::vector<std::pair<std::string, nlohmann::json>>> after(static_cast<std::size_t>(su.p));
    std::int64_t p2p_bytes = 0;
    for (const auto& msg : s.at("messages")) {
      const auto it = std::find(su.ranks.begin(), su.ranks.end(), msg.at("rank").get<int>());
      if (it == su.ranks.end()) continue;
      const int r = static_cast<int>(it - su.ranks.begin());
      const std::string op = msg.at("op").get<std::string>();
      if (op == "send" || op == "recv") {
        p2p_bytes = std::max(p2p_bytes, msg.at("bytes").get<std::int64_t>());
        continue;
      }
      std::vector<int> group = msg.at("group").get<std::vector<int>>();
      std::sort(group.begin(), group.end());
      const CommCost cc = costs.cost(op, group, msg.at("bytes").get<std::int64_t>());
      sources.insert(cc.source);
      const double ms = static_cast<double>(cc.time) / 1e6 * msg.at("count").get<double>();
      if (msg.at("phase").get<std::string>() == "after") {
        auto m = msg;
        m["ms"] = ms;
        after[static_cast<std::size_t>(r)].emplace_back(msg.at("what").get<std::string>() + " " + msg["group"].dump(), m);
      } else {
        inside_ms[r] += ms;
      }
    }
    ScheduleSpec spec;
    spec.kind = name == "gpipe" ? ScheduleKind::kGpipe : v > 1 ? ScheduleKind::kInterleaved : ScheduleKind::kOneFOneB;
    spec.p = su.p;
    spec.v = v;
    spec.m = su.m;
    spec.overlap_p2p = model.value("overlap_p2p_communication", true);
    spec.warmup = s.at("warmup").get<std::vector<std::int64_t>>();
    spec.table = table_for(plan, v);
    spec.p2p_bytes = p2p_bytes;
    const int layers_per_chunk = layers / su.p / v;
    for (int r = 0; r < su.p; ++r) {
      std::vector<SimTime> f, b;
      // Collectives inside the schedule, spread over the rank's microbatch steps (1/3 forward, 2/3 backward).
      const double extra = inside_ms.count(r) ? inside_ms[r] / static_cast<double>(su.m * v) : 0;
      for (int ch = 0; ch < v; ++ch) {
        double fwd = layers_per_chunk * out.fwd_ms_per_layer, bwd = layers_per_chunk * out.bwd_ms_per_layer;
        if (r == su.p - 1 && ch == v - 1) {
          fwd += out_layer_ms;
          bwd += 2 * out_layer_ms;
        }
        f.push_back(ms_to_ns(fwd + extra / 3));
        b.push_back(ms_to_ns(bwd + 2 * extra / 3));
      }
      spec.fwd.push_back(f);
      spec.bwd.push_back(b);
    }
    auto tasks = generate_schedule(spec);
    // After the pipeline, the plan's collectives in order. Members are the simulated ranks of the group;
    // DP peers sit in other pipeline groups, doing the same at the same time.
    std::vector<SimCollective> colls;
    std::map<std::string, int> by_key;
    for (int r = 0; r < su.p; ++r) {
      for (const auto& [key, msg] : after[static_cast<std::size_t>(r)]) {
        auto it = by_key.find(key);
        if (it == by_key.end()) {
          SimCollective coll;
          for (int g : msg.at("group").get<std::vector<int>>()) {
            const auto pos = std::find(su.ranks.begin(), su.ranks.end(), g);
            if (pos != su.ranks.end()) coll.members.push_back(static_cast<int>(pos - su.ranks.begin()));
          }
          std::sort(coll.members.begin(), coll.members.end());
          coll.duration = ms_to_ns(msg.at("ms").get<double>());
          coll.label = msg.at("what").get<std::string>();
          it = by_key.emplace(key, static_cast<int>(colls.size())).first;
          colls.push_back(coll);
        }
        Task t;
        t.kind = Task::Kind::kCollective;
        t.collective = it->second;
        tasks[static_cast<std::size_t>(r)].tasks.push_back(t);
      }
      if (c.optimizer_ms > 0) {
        Task t;
        t.kind = Task::Kind::kCompute;
        t.duration = ms_to_ns(c.optimizer_ms);
        t.name = "optimizer";
        tasks[static_cast<std::size_t>(r)].tasks.push_back(t);
      }
    }
    SimCosts sc;
    sc.p2p = [&](int src, int dst, std::int64_t bytes) { return pair_cost(p2p_model, src, dst, bytes); };
    if (shared_path) {
      sc.link = [](int, int) { return 0; };
    } else if (paths && !paths->empty()) {
      sc.links = [&](int src, int dst) {
        const auto it = paths->links.find({su.ranks[static_cast<std::size_t>(src)], su.ranks[static_cast<std::size_t>(dst)]});
        if (it != paths->links.end()) return it->second;
        return std::vector<int>{static_cast<int>(paths->link_count) + src * 100003 + dst};  // unknown: its own link
      };
    }
    sc.compute_slowdown_while_comm = c.comm_sm_slowdown;
    SchedulePrediction sp;
    sp.name = name;
    sp.v = v;
    sp.overlap_p2p = spec.overlap_p2p;
    sp.global_ranks = su.ranks;
    sp.sim = simulate(tasks, colls, sc, trace);
    sp.iteration_ms = static_cast<double>(sp.sim.iteration) / 1e6;
    sp.bubble_ideal = s.value("bubble_ideal", 0.0);
    SimTime most = 0;
    for (const auto& rr : sp.sim.ranks) most = std::max(most, rr.compute);
    sp.bubble_sim = sp.sim.iteration > 0 ? 1.0 - static_cast<double>(most) / static_cast<double>(sp.sim.iteration) : 0;
    return sp;
  };

  const nlohmann::json* base_json = nullptr;
  for (const auto& s : plan.at("schedules")) {
    const std::string name = s.at("name").get<std::string>();
    if (name == "1f1b") base_json = &s;
    if (!filter.empty() && filter != name && filter != name + ":v" + std::to_string(s.at("v").get<int>())) continue;
    out.schedules.push_back(run(s, costs, keep_trace));
  }
  // GPipe as a reference (all forwards, then all backwards; the 1F1B plan's messages).
  if (base_json && (filter.empty() || filter == "gpipe")) {
    nlohmann::json gpipe = *base_json;
    gpipe["name"] = "gpipe";
    out.schedules.push_back(run(gpipe, costs, keep_trace));
    out.schedules.back().reference = true;
  }
  if (out.schedules.empty()) {
    std::string names;
    for (const auto& s : plan.at("schedules")) {
      names += (names.empty() ? "" : ", ") + s.at("name").get<std::string>() +
               (s.at("v").get<int>() > 1 ? ":v" + std::to_string(s.at("v").get<int>()) : "");
    }
    throw UsageError("--schedule " + filter + ": not a schedule of this plan (it has " + names + ", gpipe; valid v for the model: " +
                     plan.value("valid_v", nlohmann::json::array()).dump() + ")");
  }

  // Speed-ups and the best schedule.
  const SchedulePrediction* base = nullptr;
  for (const auto& s : out.schedules) {
    if (s.name == "1f1b") base = &s;
  }
  const SchedulePrediction* best = &out.schedules.front();
  for (auto& s : out.schedules) {
    if (base && s.iteration_ms > 0) s.speedup = base->iteration_ms / s.iteration_ms;
    if (!s.reference && (best->reference || s.iteration_ms < best->iteration_ms)) best = &s;
  }
  out.best = best->name + (best->v > 1 ? " v=" + std::to_string(best->v) : "");

  // The slowest pipeline link (the wrap edge counts when a schedule interleaves).
  const bool interleaving = std::any_of(out.schedules.begin(), out.schedules.end(), [](const auto& s) { return s.v > 1; });
  std::int64_t act_bytes = 0;
  for (const auto& msg : plan.at("schedules").at(0).at("messages")) {
    if (msg.at("op") == "send") act_bytes = std::max(act_bytes, msg.at("bytes").get<std::int64_t>());
  }
  for (int r = 0; su.p > 1 && r < su.p; ++r) {
    const int nxt = (r + 1) % su.p;
    if (nxt == 0 && !interleaving) continue;
    const double ms = static_cast<double>(pair_cost(costs, r, nxt, act_bytes)) / 1e6;
    if (out.deciding_pair.empty() || ms > out.deciding_pair_ms) {
      out.deciding_pair = {su.ranks[static_cast<std::size_t>(r)], su.ranks[static_cast<std::size_t>(nxt)]};
      out.deciding_pair_ms = ms;
    }
  }
  char buf[512];
  if (base && best == base) {
    std::snprintf(buf, sizeof buf, "1F1B is fastest (%.3f ms): interleaving's extra P2P costs more than its smaller bubble saves",
                  base->iteration_ms);
  } else if (base) {
    std::snprintf(buf, sizeof buf, "%s is fastest: %.3f ms, %.2fx 1F1B (%.3f ms): its smaller bubble outweighs its extra P2P",
                  out.best.c_str(), best->iteration_ms, best->speedup, base->iteration_ms);
  } else {
    std::snprintf(buf, sizeof buf, "%s: %.3f ms", out.best.c_str(), best->iteration_ms);
  }
  out.verdict = buf;
  if (!out.deciding_pair.empty()) {
    std::snprintf(buf, sizeof buf, "; the slowest pipeline link is %d->%d, %.4f ms per %lld-byte activation",
                  out.deciding_pair[0], out.deciding_pair[1], out.deciding_pair_ms, static_cast<long long>(act_bytes));
    out.verdict += buf;
  }

  out.cost_sources.assign(sources.begin(), sources.end());
  // Break-even: the P2P bandwidth (an assumed link, no latency) above which each v beats 1F1B.
  if (base_json) {
    for (const auto& s : plan.at("schedules")) {
      const int v = s.at("v").get<int>();
      if (v <= 1) continue;
      if (!filter.empty() && filter != "interleaved" && filter != "interleaved:v" + std::to_string(v)) continue;
      auto wins = [&](double gbps) {
        const AssumedCost link(gbps, 0);
        return run(s, link, false).iteration_ms < run(*base_json, link, false).iteration_ms;
      };
      double lo = 1e-3, hi = 1e5;
      std::optional<double> answer;
      if (wins(lo)) {
        answer = lo;
      } else if (wins(hi)) {
        for (int i = 0; i < 40; ++i) {
          const double mid = std::sqrt(lo * hi);
          (wins(mid) ? hi : lo) = mid;
        }
        answer = hi;
      }
      out.break_even_gbps.emplace_back(v, answer);
    }
  }
  return out;
}

nlohmann::json prediction_to_json(const Prediction& p) {
  nlohmann::json schedules = nlohmann::json::array();
  for (const auto& s : p.schedules) {
    nlohmann::json ranks = nlohmann::json::array();
    for (std::size_t r = 0; r < s.sim.ranks.size(); ++r) {
      const auto& rr = s.sim.ranks[r];
      const double it = static_cast<double>(s.sim.iteration);
      ranks.push_back({{"rank", s.global_ranks[r]},
                       {"compute_ms", static_cast<double>(rr.compute) / 1e6},
                       {"exposed_comm_ms", static_cast<double>(rr.blocked) / 1e6},
                       {"idle_ms", static_cast<double>(s.sim.iteration - rr.compute - rr.blocked) / 1e6},
                       {"nccl_share", it > 0 ? static_cast<double>(rr.comm_busy) / it : 0.0},
                       {"p2p_bytes", rr.p2p_bytes_out}});
    }
    schedules.push_back({{"name", s.name},
                         {"reference", s.reference},
                         {"v", s.v},
                         {"overlap_p2p", s.overlap_p2p},
                         {"iteration_ms", s.iteration_ms},
                         {"speedup_vs_1f1b", s.speedup},
                         {"bubble_ideal", s.bubble_ideal},
                         {"bubble_sim", s.bubble_sim},
                         {"ranks", ranks}});
  }
  nlohmann::json be = nlohmann::json::object();
  for (const auto& [v, g] : p.break_even_gbps) be[std::to_string(v)] = g ? nlohmann::json(*g) : nlohmann::json(nullptr);
  return {{"schema", "pipebench.prediction/1"},
          {"cost_source", p.cost_sources},
          {"compute", {{"source", p.compute_source}, {"fwd_ms_per_layer", p.fwd_ms_per_layer}, {"bwd_ms_per_layer", p.bwd_ms_per_layer}}},
          {"schedules", schedules},
          {"verdict", {{"best", p.best}, {"text", p.verdict}, {"deciding_pair", p.deciding_pair}}},
          {"break_even_gbps", be},
          {"notes", p.notes}};
}

nlohmann::json chrome_trace(const SchedulePrediction& s) {
  nlohmann::json events = nlohmann::json::array();
  const std::vector<std::string> tracks = {"compute", "send", "recv", "collectives"};
  for (std::size_t r = 0; r < s.global_ranks.size(); ++r) {
    events.push_back({{"ph", "M"}, {"name", "process_name"}, {"pid", r}, {"tid", 0},
                      {"args", {{"name", "rank " + std::to_string(s.global_ranks[r])}}}});
    for (std::size_t t = 0; t < tracks.size(); ++t) {
      events.push_back({{"ph", "M"}, {"name", "thread_name"}, {"pid", r}, {"tid", t}, {"args", {{"name", tracks[t]}}}});
    }
  }
  for (const auto& e : s.sim.trace) {
    const auto tid = static_cast<std::size_t>(std::find(tracks.begin(), tracks.end(), e.track) - tracks.begin());
    events.push_back({{"ph", "X"}, {"name", e.name}, {"pid", e.rank}, {"tid", tid},
                      {"ts", static_cast<double>(e.start) / 1000.0}, {"dur", static_cast<double>(e.end - e.start) / 1000.0}});
  }
  return {{"traceEvents", events}, {"displayTimeUnit", "ms"}};
}

}  // namespace pipebench
