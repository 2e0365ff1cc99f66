// SPDX-License-Identifier: Apache-2.0
// Prediction and simulated-trace JSON.
#include "io/prediction_io.h"

#include <algorithm>
#include <string>
#include <vector>

namespace pipebench {

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
  return {{"schema", kPredictionSchema},
          {"cost_source", p.cost_sources},
          {"compute",
           {{"source", p.compute_source},
            {"fwd_ms_per_layer", p.fwd_ms_per_layer},
            {"bwd_ms_per_layer", p.bwd_ms_per_layer}}},
          {"schedules", schedules},
          {"verdict", {{"best", p.best}, {"text", p.verdict}, {"deciding_pair", p.deciding_pair}}},
          {"break_even_gbps", be},
          {"notes", p.notes}};
}

nlohmann::json chrome_trace(const SchedulePrediction& s) {
  nlohmann::json events = nlohmann::json::array();
  const std::vector<std::string> tracks = {"compute", "send", "recv", "collectives"};
  for (std::size_t r = 0; r < s.global_ranks.size(); ++r) {
    events.push_back({{"ph", "M"},
                      {"name", "process_name"},
                      {"pid", r},
                      {"tid", 0},
                      {"args", {{"name", "rank " + std::to_string(s.global_ranks[r])}}}});
    for (std::size_t t = 0; t < tracks.size(); ++t) {
      events.push_back({{"ph", "M"}, {"name", "thread_name"}, {"pid", r}, {"tid", t}, {"args", {{"name", tracks[t]}}}});
    }
  }
  for (const auto& e : s.sim.trace) {
    const auto tid = static_cast<std::size_t>(std::find(tracks.begin(), tracks.end(), e.track) - tracks.begin());
    events.push_back({{"ph", "X"},
                      {"name", e.name},
                      {"pid", e.rank},
                      {"tid", tid},
                      {"ts", static_cast<double>(e.start) / 1000.0},
                      {"dur", static_cast<double>(e.end - e.start) / 1000.0}});
  }
  return {{"traceEvents", events}, {"displayTimeUnit", "ms"}};
}

}  // namespace pipebench
