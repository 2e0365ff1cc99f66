// SPDX-License-Identifier: Apache-2.0
// Per-rank PyTorch profiler (Kineto) traces of a made-up job, for the job-view tests and benchmark: each
// iteration every rank runs a GEMM and an elementwise kernel (stream 7), an all_reduce on NCCL's stream
// (20) that starts while the GEMM runs and ends at the same true moment on every rank, a SendRecv (21),
// a memcpy and a memset. One rank computes twice as long (the others wait in the all_reduce). Each
// rank's clock is off by its own skew, and each trace starts at its own moment (baseTimeNanoseconds).
// The events are kept in true time so that tests can compute every total independently (expected_*).
#pragma once

#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace pipebench::testing {

struct FixtureEvent {
  int rank = 0;
  std::string cat, name;
  int stream = 0;
  std::int64_t start_us = 0, dur_us = 0;  // true time
  nlohmann::json args = nlohmann::json::object();
};

class JobFixture {
 public:
  int ranks = 4, iterations = 3, slow_rank = 2;
  std::vector<std::int64_t> skew_us = {0, 1500, -700, 3200};  // rank clock = true time + skew
  bool base_time = true;                                      // write baseTimeNanoseconds
  bool distributed_info = true;  // write distributedInfo (else ranks come from the file names)
  bool string_ids = false;       // device events as older profilers wrote them: pid "GPU r", tid "stream s"
  std::int64_t iteration_us = 10000;
  static constexpr std::int64_t kEpochNs = 1'760'000'000'000'000'000;

  std::int64_t compute_us(int rank) const { return rank == slow_rank ? 6000 : 3000 + 200 * rank; }
  // Trace r starts r * 250 us after trace 0 (its baseTimeNanoseconds, on its own clock).
  static std::int64_t start_delay_us(int rank) { return 250 * rank; }

  std::vector<FixtureEvent> events() const {
    std::vector<FixtureEvent> out;
    for (int r = 0; r < ranks; ++r) {
      for (int i = 0; i < iterations; ++i) add_iteration(out, r, i);
    }
    return out;
  }

  // Writes rank r's trace to dir/name_of(r); gzip when `gz`. Returns the paths.
  std::vector<std::string> write(const std::string& dir, const std::string& stem = "rank", bool gz = false) const {
    std::vector<std::string> paths;
    const auto all = events();
    for (int r = 0; r < ranks; ++r) {
      const std::string path = dir + "/" + stem + std::to_string(r) + (gz ? ".json.gz" : ".json");
      const std::string text = trace_of(r, all).dump();
      if (gz) {
        gzFile f = gzopen(path.c_str(), "wb");
        gzwrite(f, text.data(), static_cast<unsigned>(text.size()));
        gzclose(f);
      } else {
        std::ofstream(path) << text;
      }
      paths.push_back(path);
    }
    return paths;
  }

  nlohmann::json trace_of(int r, const std::vector<FixtureEvent>& all) const {
    nlohmann::json events = nlohmann::json::array();
    for (const auto& e : all) {
      if (e.rank != r) continue;
      // What rank r's profiler writes: its own clock, relative to its own start.
      const std::int64_t ts = e.start_us + skew_us[r] - (skew_us[r] + start_delay_us(r));
      nlohmann::json ev = {{"ph", "X"}, {"cat", e.cat}, {"name", e.name}, {"ts", ts}, {"dur", e.dur_us}};
      if (e.cat == "user_annotation") {
        ev["pid"] = 4000 + r, ev["tid"] = 1;
      } else if (string_ids) {
        ev["pid"] = "GPU " + std::to_string(r), ev["tid"] = "stream " + std::to_string(e.stream);
        ev["args"] = e.args;
      } else {
        ev["pid"] = r, ev["tid"] = e.stream;
        ev["args"] = e.args;
        ev["args"]["device"] = r;
        ev["args"]["stream"] = e.stream;
      }
      events.push_back(ev);
    }
    nlohmann::json doc = {{"schemaVersion", 1}, {"traceEvents", events}, {"displayTimeUnit", "ms"}};
    if (base_time) doc["baseTimeNanoseconds"] = kEpochNs + (skew_us[r] + start_delay_us(r)) * 1000;
    if (distributed_info) doc["distributedInfo"] = {{"backend", "nccl"}, {"rank", r}, {"world_size", ranks}};
    return doc;
  }

 private:
  void add_iteration(std::vector<FixtureEvent>& out, int r, int i) const {
    const std::int64_t t0 = 1000 + i * iteration_us, c = compute_us(r);
    const std::int64_t ar_end = t0 + 6000 + 100 + 500 + 800;  // same true moment on every rank
    const std::int64_t ar_start = t0 + c - 1000;              // overlaps the GEMM's last 1000 us
    nlohmann::json coll = {{"Collective name", "allreduce"},
                           {"In msg nelems", 1048576},
                           {"Out msg nelems", 1048576},
                           {"dtype", "Float"},
                           {"Group size", ranks}};
    out.push_back({r, "user_annotation", "ProfilerStep#" + std::to_string(i), 0, t0, iteration_us - 10, {}});
    out.push_back({r, "kernel", "sm90_xmma_gemm_bf16", 7, t0, c, nlohmann::json::object()});
    out.push_back({r, "kernel", "vectorized_elementwise_kernel", 7, t0 + c + 100, 500, nlohmann::json::object()});
    out.push_back({r, "kernel", "ncclDevKernel_AllReduce_Sum_f32_RING_LL", 20, ar_start, ar_end - ar_start, coll});
    out.push_back({r, "kernel", "ncclDevKernel_SendRecv", 21, t0 + 7600, 300, nlohmann::json::object()});
    out.push_back({r, "gpu_memcpy", "Memcpy DtoD (Device -> Device)", 7, t0 + 8000, 200, {{"bytes", 1048576}}});
    out.push_back({r, "gpu_memset", "Memset (Device)", 7, t0 + 8300, 50, {{"bytes", 4096}}});
  }
};

// Independent totals: every microsecond tick of rank r's activity classified by what covers it.
struct ExpectedRank {
  std::int64_t first_us = 0, last_us = 0, compute_us = 0, comm_us = 0, overlap_us = 0, memory_only_us = 0, idle_us = 0,
               memcpy = 0, memset = 0, memcpy_bytes = 0;
};

inline ExpectedRank expected_rank(const std::vector<FixtureEvent>& all, int r) {
  ExpectedRank x;
  std::vector<const FixtureEvent*> mine;
  for (const auto& e : all)
    if (e.rank == r && e.cat != "user_annotation") mine.push_back(&e);
  x.first_us = mine.front()->start_us, x.last_us = 0;
  for (const auto* e : mine) {
    x.first_us = std::min(x.first_us, e->start_us);
    x.last_us = std::max(x.last_us, e->start_us + e->dur_us);
    if (e->cat == "gpu_memcpy") ++x.memcpy, x.memcpy_bytes += e->args["bytes"].get<std::int64_t>();
    if (e->cat == "gpu_memset") ++x.memset;
  }
  for (std::int64_t t = x.first_us; t < x.last_us; ++t) {
    bool compute = false, comm = false, memory = false;
    for (const auto* e : mine) {
      if (t < e->start_us || t >= e->start_us + e->dur_us) continue;
      if (e->cat != "kernel") {
        memory = true;
      } else if (e->name.rfind("nccl", 0) == 0) {
        comm = true;
      } else {
        compute = true;
      }
    }
    x.compute_us += compute;
    x.comm_us += comm;
    x.overlap_us += compute && comm;
    x.memory_only_us += memory && !compute && !comm;
    x.idle_us += !compute && !comm && !memory;
  }
  return x;
}

inline std::string make_temp_dir(const std::string& tag) {
  std::string pattern = "/tmp/pipebench_" + tag + "_XXXXXX";
  return ::mkdtemp(pattern.data()) ? pattern : std::string();
}

}  // namespace pipebench::testing
