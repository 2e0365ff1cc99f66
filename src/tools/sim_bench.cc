// SPDX-License-Identifier: Apache-2.0
// `make bench` (simulator part): the schedule generator and the simulator at p = 64, v = 8, m = 1024
// (DESIGN.md §7: well under a second), and `pipebench plan` on a 1024-rank layout with context
// parallelism (target: under a second), with Google Benchmark.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <sstream>

#include "megatron/plan.h"
#include "sim/schedules.h"
#include "sim/simulator.h"

namespace {

pipebench::ScheduleSpec big_spec(int p, int v, std::int64_t m) {
  pipebench::ScheduleSpec s;
  s.kind = v > 1 ? pipebench::ScheduleKind::kInterleaved : pipebench::ScheduleKind::kOneFOneB;
  s.p = p;
  s.v = v;
  s.m = m;
  s.p2p_bytes = 1 << 22;
  s.fwd.assign(static_cast<std::size_t>(p), std::vector<pipebench::SimTime>(static_cast<std::size_t>(v), 1000));
  s.bwd.assign(static_cast<std::size_t>(p), std::vector<pipebench::SimTime>(static_cast<std::size_t>(v), 2000));
  for (int r = 0; r < p; ++r) {
    s.warmup.push_back(v > 1 ? std::min<std::int64_t>(2 * (p - r - 1) + (v - 1) * p, m * v)
                             : std::min<std::int64_t>(p - r - 1, m));
  }
  for (std::int64_t g = 0; g < m; g += p)
    for (int c = 0; c < v; ++c)
      for (std::int64_t mb = g; mb < std::min<std::int64_t>(g + p, m); ++mb) s.table.emplace_back(mb, c);
  return s;
}

void BM_SimulateInterleaved(benchmark::State& state) {
  const auto spec = big_spec(static_cast<int>(state.range(0)), static_cast<int>(state.range(1)), state.range(2));
  pipebench::SimCosts costs;
  costs.p2p = [](int, int, std::int64_t bytes) { return pipebench::SimTime{2000 + bytes / 50}; };
  for (auto _ : state) {
    const auto tasks = pipebench::generate_schedule(spec);
    const auto result = pipebench::simulate(tasks, {}, costs);
    benchmark::DoNotOptimize(result.iteration);
  }
  state.counters["tasks"] = static_cast<double>(spec.p) * static_cast<double>(spec.m * spec.v) * 4;
}

// Parses these Megatron arguments and builds the plan, once per benchmark iteration.
void time_plan(benchmark::State& state, std::istringstream& in) {
  std::vector<std::string> words;
  for (std::string w; in >> w;) words.push_back(w);
  std::size_t messages = 0;
  for (auto _ : state) {
    const auto plan = pipebench::make_plan(pipebench::parse_megatron_args(words), 0);
    messages = 0;
    for (const auto& s : plan.schedules) messages += s.messages.size();
    benchmark::DoNotOptimize(messages);
  }
  state.counters["messages"] = static_cast<double>(messages);
}

// A Llama-70B-like job on 1024 GPUs: t 8 x cp 2 x p 4 x d 16, 80 layers, SP, GQA, full recompute, every
// rank listed, 1F1B and the interleaved schedule at each valid v.
void BM_Plan1024RanksCp(benchmark::State& state) {
  std::istringstream in(
      "--num-layers 80 --hidden-size 8192 --ffn-hidden-size 28672 --num-attention-heads 64 "
      "--group-query-attention --num-query-groups 8 --swiglu --seq-length 8192 --max-position-embeddings 8192 "
      "--micro-batch-size 1 --global-batch-size 128 --tensor-model-parallel-size 8 --context-parallel-size 2 "
      "--pipeline-model-parallel-size 4 --world-size 1024 --sequence-parallel --bf16 --vocab-size 128256 "
      "--use-distributed-optimizer --overlap-grad-reduce --recompute-granularity full --recompute-method uniform "
      "--recompute-num-layers 1");
  time_plan(state, in);
}

// A DeepSeek/Mixtral-like MoE job on 1024 GPUs: t 4 x cp 2 x p 4 x d 32 for the dense layers, 64 experts
// top-8 on EP 16 (expert tp 4, expert dp 4) with the alltoall dispatcher, 32 layers, SP, GQA, shared
// experts, the distributed optimizer, full recompute; every rank listed.
void BM_Plan1024RanksMoeCp(benchmark::State& state) {
  std::istringstream in(
      "--num-layers 32 --hidden-size 4096 --ffn-hidden-size 14336 --num-attention-heads 32 "
      "--group-query-attention --num-query-groups 8 --swiglu --seq-length 8192 --max-position-embeddings 8192 "
      "--micro-batch-size 1 --global-batch-size 256 --tensor-model-parallel-size 4 --context-parallel-size 2 "
      "--pipeline-model-parallel-size 4 --world-size 1024 --sequence-parallel --bf16 --vocab-size 128256 "
      "--num-experts 64 --moe-router-topk 8 --expert-model-parallel-size 16 --moe-ffn-hidden-size 2048 "
      "--moe-shared-expert-intermediate-size 4096 --moe-token-dispatcher-type alltoall --moe-aux-loss-coeff 0.01 "
      "--use-distributed-optimizer --overlap-grad-reduce --recompute-granularity full --recompute-method uniform "
      "--recompute-num-layers 1");
  time_plan(state, in);
}

}  // namespace

BENCHMARK(BM_Plan1024RanksCp)->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(BM_Plan1024RanksMoeCp)->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(BM_SimulateInterleaved)->Args({64, 8, 1024})->Args({4, 4, 16})->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK_MAIN();
