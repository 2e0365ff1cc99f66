// SPDX-License-Identifier: Apache-2.0
// `make bench` (simulator part): the schedule generator and the simulator at p = 64, v = 8, m = 1024, the
// simulator alone on compiled programs
// (DESIGN.md §7: well under a second), `pipebench plan` on a 1024-rank layout with context
// parallelism (target: under a second), and `pipebench predict` of a p 64, v 8, 1024-microbatch plan
// with every schedule and its break-even search (target: under 2 s and 300 MB peak RSS), with Google
// Benchmark.
#include <benchmark/benchmark.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "core/file_io.h"
#include "io/plan_io.h"
#include "megatron/plan.h"
#include "sim/schedules.h"
#include "sim/simulator.h"

namespace {

pipebench::ScheduleSpec big_spec(int p, int v, std::int64_t m) {
  pipebench::ScheduleSpec s;
  s.id = {v > 1 ? "interleaved" : "1f1b", v};
  pipebench::Layout l;  // Megatron's shape with groups of p microbatches
  l.pp = p;
  l.microbatches = m;
  l.microbatch_group = p;
  s.shape = pipebench::megatron_shape(pipebench::MegatronArgs{}, l, s.id);
  s.p2p_bytes = 1 << 22;
  s.fwd.assign(static_cast<std::size_t>(p), std::vector<pipebench::SimTime>(static_cast<std::size_t>(v), 1000));
  s.bwd.assign(static_cast<std::size_t>(p), std::vector<pipebench::SimTime>(static_cast<std::size_t>(v), 2000));
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
  state.counters["tasks"] = static_cast<double>(spec.shape.p) * static_cast<double>(spec.shape.steps()) * 4;
}

// The simulation alone of programs compiled once, as predict's break-even search runs a schedule again and
// again: its CPU time per task.
void BM_SimulateCompiled(benchmark::State& state) {
  const auto spec = big_spec(static_cast<int>(state.range(0)), static_cast<int>(state.range(1)), state.range(2));
  std::vector<pipebench::CompiledProgram> programs;
  std::size_t tasks = 0;
  pipebench::generate_schedule(spec, [&](int, pipebench::Program& p) {
    tasks += p.tasks.size();
    programs.push_back(pipebench::compile_program(std::move(p)));
  });
  pipebench::SimCosts costs;
  costs.p2p = [](int, int, std::int64_t bytes) { return pipebench::SimTime{2000 + bytes / 50}; };
  for (auto _ : state) {
    const auto result = pipebench::simulate(programs, {}, costs);
    benchmark::DoNotOptimize(result.iteration);
  }
  state.counters["tasks"] = static_cast<double>(tasks);
  state.counters["per_task"] =  // seconds of CPU per task (printed as e.g. 60n)
      benchmark::Counter(static_cast<double>(tasks),
                         benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
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

// The process `argv` (stdout and stderr to /dev/null): its wall time, CPU time (user + sys) and peak RSS
// (wait4's rusage).
struct ChildRun {
  double wall_s = 0, cpu_s = 0, max_rss_mb = 0;
  int status = -1;
};

ChildRun run_child(std::vector<std::string> argv) {
  ChildRun out;
  std::vector<char*> args;
  for (auto& a : argv) args.push_back(a.data());
  args.push_back(nullptr);
  const auto t0 = std::chrono::steady_clock::now();
  const pid_t pid = fork();
  if (pid == 0) {
    std::FILE* null = std::freopen("/dev/null", "w", stdout);
    if (null) std::freopen("/dev/null", "w", stderr);
    execv(args[0], args.data());
    _exit(127);
  }
  if (pid < 0) return out;
  struct rusage ru {};
  wait4(pid, &out.status, 0, &ru);
  out.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  out.max_rss_mb = static_cast<double>(ru.ru_maxrss) / 1024.0;  // KiB on Linux
  out.cpu_s = static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
              static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
  return out;
}

// `pipebench predict` of a plan with p 64, v 2/4/8 and 1024 microbatches (512 layers, h 1024, s 512):
// every schedule, its break-even search and the JSON, as a user runs it ($PIPEBENCH, else
// build/bin/pipebench). Wall time per run; the process's CPU seconds (user + sys, mean; on a busy machine
// the steadier figure) and its largest peak RSS (MB).
void BM_PredictP64V8M1024(benchmark::State& state) {
  const char* env = std::getenv("PIPEBENCH");
  const std::string bin = env && *env ? env : "build/bin/pipebench";
  const auto dir = std::filesystem::temp_directory_path() / ("sim_bench_predict_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  std::istringstream in(
      "--num-layers 512 --hidden-size 1024 --num-attention-heads 16 --seq-length 512 "
      "--max-position-embeddings 512 --micro-batch-size 1 --global-batch-size 1024 "
      "--pipeline-model-parallel-size 64 --world-size 64 --vocab-size 1024 --fp16");
  std::vector<std::string> words;
  for (std::string w; in >> w;) words.push_back(w);
  const std::string plan = (dir / "p64.json").string(), json = (dir / "prediction.json").string();
  pipebench::write_output_file(
      "plan", plan, pipebench::plan_to_json(pipebench::make_plan(pipebench::parse_megatron_args(words), 0)).dump());
  double rss_mb = 0, cpu_s = 0;
  int runs = 0;
  for (auto _ : state) {
    const ChildRun r = run_child({bin, "predict", "--plan", plan, "--link-gbps", "25", "--link-latency-us", "5",
                                  "--fwd-ms-per-layer", "0.5", "--json", json});
    if (!WIFEXITED(r.status) || WEXITSTATUS(r.status) != 0) {
      state.SkipWithError((bin + " predict failed").c_str());
      break;
    }
    state.SetIterationTime(r.wall_s);
    rss_mb = std::max(rss_mb, r.max_rss_mb);
    cpu_s += r.cpu_s;
    ++runs;
  }
  std::filesystem::remove_all(dir);
  state.counters["peak_rss_MB"] = rss_mb;
  state.counters["cpu_s"] = runs > 0 ? cpu_s / runs : 0;
}

}  // namespace

BENCHMARK(BM_PredictP64V8M1024)->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(BM_Plan1024RanksCp)->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(BM_Plan1024RanksMoeCp)->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(BM_SimulateCompiled)->Args({64, 8, 1024})->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(BM_SimulateInterleaved)->Args({64, 8, 1024})->Args({4, 4, 16})->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK_MAIN();
