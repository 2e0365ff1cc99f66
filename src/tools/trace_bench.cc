// SPDX-License-Identifier: Apache-2.0
// `make bench` (trace part): reads a synthetic Nsight Systems export of 10 million kernel rows (with a
// CUDA runtime row per kernel and an NVTX range per 100 launches) by kernel and by NVTX range, and
// reports the time and the peak resident memory. Target (issue #6): well under a minute, with memory
// bounded (it must not grow with the rows). PIPEBENCH_TRACE_ROWS overrides the row count.
// Then a whole job (issue #17): 8 per-rank PyTorch profiler traces of 1M events each, read as one job
// (target: under 30 s; memory bounded by one rank's kernels, not all ranks'). PIPEBENCH_JOB_EVENTS
// overrides the events per rank.
#include <benchmark/benchmark.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "megatron/plan.h"
#include "sim/predictor.h"
#include "trace/job_reader.h"
#include "trace/nsys_reader.h"
#include "trace/profile_calibration.h"

namespace {

// The job's own peak: Linux resets a process's peak RSS (VmHWM) when "5" is written to
// /proc/self/clear_refs (proc(5)), so the nsys part of this benchmark does not count here.
bool reset_peak_rss() {
  FILE* f = std::fopen("/proc/self/clear_refs", "w");
  if (f == nullptr) return false;
  const bool ok = std::fputs("5", f) >= 0;
  return std::fclose(f) == 0 && ok;
}

// VmHWM (peak) or VmRSS (now) from /proc/self/status, in MiB; -1 when unreadable.
double proc_status_mib(const char* format) {
  FILE* f = std::fopen("/proc/self/status", "r");
  double kib = -1;
  char line[256];
  while (f != nullptr && std::fgets(line, sizeof line, f) != nullptr) {
    if (std::sscanf(line, format, &kib) == 1) break;
  }
  if (f != nullptr) std::fclose(f);
  return kib < 0 ? -1 : kib / 1024.0;
}
double job_peak_rss_mib() { return proc_status_mib("VmHWM: %lf kB"); }

std::int64_t job_events() {
  const char* v = std::getenv("PIPEBENCH_JOB_EVENTS");
  return v ? std::atoll(v) : 1'000'000;
}

// Per rank: per 10 events, 5 kernels on two streams (one NCCL), 4 CUDA launches, 1 memcpy; written
// the way Kineto writes them (ts/dur in us with ns decimals, kernel args with device/stream/correlation).
const std::string& job_dir() {
  static const std::string dir = [] {
    std::string d = "/tmp/pipebench_job_bench_" + std::to_string(getpid());
    mkdir(d.c_str(), 0700);
    const std::int64_t n = job_events();
    for (int r = 0; r < 8; ++r) {
      FILE* f = std::fopen((d + "/rank" + std::to_string(r) + ".json").c_str(), "w");
      std::fprintf(f,
                   "{\"schemaVersion\": 1, \"baseTimeNanoseconds\": %lld, \"distributedInfo\": "
                   "{\"rank\": %d, \"world_size\": 8}, \"traceEvents\": [\n",
                   1760000000000000000LL + r * 1000LL, r);
      for (std::int64_t i = 0; i < n; ++i) {
        const double t = static_cast<double>(i) * 1.2;
        const int kind = static_cast<int>(i % 10);
        const char* sep = i + 1 < n ? ",\n" : "\n";
        if (kind < 5) {
          const bool nccl = kind == 4;
          std::fprintf(f,
                       "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"%s\", \"pid\": %d, \"tid\": %d, \"ts\": "
                       "%.3f, \"dur\": 1.100, \"args\": {\"device\": %d, \"stream\": %d, \"correlation\": %lld}}%s",
                       nccl ? "ncclDevKernel_AllReduce_Sum_bf16_RING_LL" : "sm90_xmma_gemm_bf16", r, nccl ? 20 : 7, t,
                       r, nccl ? 20 : 7, static_cast<long long>(i), sep);
        } else if (kind < 9) {
          std::fprintf(f,
                       "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 100, "
                       "\"tid\": 101, \"ts\": %.3f, \"dur\": 0.500, \"args\": {\"correlation\": %lld}}%s",
                       t, static_cast<long long>(i - 5), sep);
        } else {
          std::fprintf(f,
                       "{\"ph\": \"X\", \"cat\": \"gpu_memcpy\", \"name\": \"Memcpy DtoD\", \"pid\": %d, \"tid\": 7, "
                       "\"ts\": %.3f, \"dur\": 0.300, \"args\": {\"device\": %d, \"stream\": 7, \"bytes\": 4096}}%s",
                       r, t, r, sep);
        }
      }
      std::fprintf(f, "]}\n");
      std::fclose(f);
    }
    return d;
  }();
  return dir;
}

void remove_job_dir() {
  std::error_code ec;
  std::filesystem::remove_all(job_dir(), ec);
}

void BM_ReadJob8Ranks(benchmark::State& state) {
  std::int64_t kernels = 0;
  const std::string& dir = job_dir();
  const bool reset = reset_peak_rss();
  const double before_mib = proc_status_mib("VmRSS: %lf kB");
  for (auto _ : state) {
    const auto job = pipebench::read_job({dir}, pipebench::JobReadOptions{});
    kernels = 0;
    for (const auto& r : job.ranks) kernels += r.profile.kernel_rows;
    benchmark::DoNotOptimize(job.ranks.data());
  }
  state.counters["ranks"] = 8;
  state.counters["events"] = static_cast<double>(8 * job_events());
  state.counters["kernel_rows"] = static_cast<double>(kernels);
  state.counters["peak_rss_MiB"] = job_peak_rss_mib();  // of the process so far when the reset failed
  state.counters["peak_rss_reset"] = reset ? 1 : 0;
  state.counters["rss_before_MiB"] = before_mib;  // the process before the read (libraries, the nsys part)
}

// predict --profile's input (issue #39): 8 CPU ranks that ran 1F1B over 64 microbatches, simulated, each pass
// written as a run of short operators and each call as a c10d operator, the way the PyTorch profiler writes a
// CPU rank, about PIPEBENCH_CALIB_MB (default 100) MB per rank. Target: read and calibrated in under 20 s and
// 600 MB on a 2-core machine.
const char* kCalibModel =
    "--num-layers 16 --hidden-size 1024 --num-attention-heads 16 --seq-length 256 --max-position-embeddings 256 "
    "--micro-batch-size 1 --global-batch-size 64 --pipeline-model-parallel-size 8 --world-size 8 --vocab-size 1024 "
    "--untie-embeddings-and-output-weights";

pipebench::Plan calib_plan() {
  std::vector<std::string> words;
  std::string w;
  for (const char* c = kCalibModel;; ++c) {
    if (*c == ' ' || *c == '\0') {
      if (!w.empty()) words.push_back(w);
      w.clear();
      if (*c == '\0') break;
    } else {
      w += *c;
    }
  }
  return pipebench::make_plan(pipebench::parse_megatron_args(words), 0);
}

std::int64_t calib_bytes_per_rank() {
  const char* v = std::getenv("PIPEBENCH_CALIB_MB");
  return (v ? std::atoll(v) : 100) << 20;
}

const std::string& calib_dir() {
  static const std::string dir = [] {
    std::string d = "/tmp/pipebench_calib_bench_" + std::to_string(getpid());
    mkdir(d.c_str(), 0700);
    const pipebench::Plan plan = calib_plan();
    pipebench::ComputeOptions co;
    co.fwd_ms_per_layer = 2;
    co.optimizer_ms = 5;
    const auto p = pipebench::predict(plan, pipebench::AssumedCost(10, 20), pipebench::make_compute_model(plan, co),
                                      false, true, "1f1b");
    const auto& trace = p.schedules.front().sim.trace;
    std::int64_t passes = 0;
    for (const auto& e : trace) passes += e.rank == 0 && e.track == "compute";
    const std::int64_t ops_per_pass =
        std::max<std::int64_t>(1, calib_bytes_per_rank() / 94 / std::max<std::int64_t>(passes, 1));
    for (int r = 0; r < 8; ++r) {
      FILE* f = std::fopen((d + "/rank" + std::to_string(r) + ".json").c_str(), "w");
      std::fprintf(f,
                   "{\"schemaVersion\": 1, \"baseTimeNanoseconds\": 1760000000000000000, \"distributedInfo\": "
                   "{\"backend\": \"gloo\", \"rank\": %d, \"world_size\": 8}, \"traceEvents\": [\n",
                   r);
      const auto ev = [f](const char* cat, const char* name, double ts_us, double dur_us, const char* args) {
        std::fprintf(f,
                     "{\"ph\":\"X\",\"cat\":\"%s\",\"name\":\"%s\",\"pid\":1,\"tid\":1,\"ts\":%.3f,\"dur\":%.3f%s},\n",
                     cat, name, ts_us, dur_us, args);
      };
      double end = 0;
      for (const auto& e : trace) {
        if (e.rank != r) continue;
        const double s = static_cast<double>(e.start) / 1e3, d_us = static_cast<double>(e.end - e.start) / 1e3;
        end = std::max(end, s + d_us);
        if (e.track == "compute") {
          const double step = d_us / static_cast<double>(ops_per_pass);
          for (std::int64_t i = 0; i < ops_per_pass; ++i)
            ev("cpu_op", "aten::mm", s + static_cast<double>(i) * step, step * 0.9, "");
        } else {
          const char* call = e.track == "send" ? "send" : e.track == "recv" ? "recv" : "allreduce";
          char args[64];
          std::snprintf(args, sizeof args, ",\"args\":{\"Collective name\":\"%s\"}", call);
          ev("cpu_op", "record_param_comms", s, d_us, args);
        }
      }
      std::fprintf(f,
                   "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#1\",\"pid\":1,\"tid\":1,"
                   "\"ts\":0,\"dur\":%.3f}]}\n",
                   end + 1);
      std::fclose(f);
    }
    return d;
  }();
  return dir;
}

void remove_calib_dir() {
  std::error_code ec;
  std::filesystem::remove_all(calib_dir(), ec);
}

void BM_CalibrateJob8Ranks(benchmark::State& state) {
  const std::string& dir = calib_dir();
  const pipebench::Plan plan = calib_plan();
  const bool reset = reset_peak_rss();
  double iteration = 0, resim = 0;
  for (auto _ : state) {
    const auto timelines = pipebench::read_rank_timelines(pipebench::expand_trace_inputs("--profile", {dir}));
    const pipebench::Calibration c = pipebench::calibrate(plan, timelines, {});
    const auto p = pipebench::predict(c.plan, *c.costs, c.compute, false, true, "1f1b");
    iteration = c.iteration_ms;
    resim = pipebench::check_profiled(c, p.schedules.front()).simulated_ms;
  }
  std::error_code ec;
  std::uintmax_t bytes = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) bytes += e.file_size(ec);
  state.counters["MB_per_rank"] = static_cast<double>(bytes) / 8 / 1e6;
  state.counters["iteration_ms"] = iteration;
  state.counters["resimulated_ms"] = resim;
  state.counters["peak_rss_MiB"] = job_peak_rss_mib();
  state.counters["peak_rss_reset"] = reset ? 1 : 0;
}

}  // namespace

BENCHMARK(BM_ReadJob8Ranks)->Unit(benchmark::kSecond)->Iterations(1)->UseRealTime();
BENCHMARK(BM_CalibrateJob8Ranks)->Unit(benchmark::kSecond)->Iterations(1)->UseRealTime();

#if PB_HAVE_SQLITE
#include "trace/nsys_fixture.h"

namespace {

std::int64_t rows() {
  const char* v = std::getenv("PIPEBENCH_TRACE_ROWS");
  return v ? std::atoll(v) : 10'000'000;
}

double peak_rss_mib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;  // ru_maxrss is in KiB on Linux
}

const std::string& profile_path() {
  static const std::string path = [] {
    const std::string p = "/tmp/pipebench_trace_bench_" + std::to_string(getpid()) + ".sqlite";
    pipebench::testing::NsysFixture f(p);
    for (int i = 0; i < 16; ++i) {
      f.str(i % 4 == 0 ? "ncclDevKernel_AllReduce_Sum_bf16_RING_LL" + std::to_string(i)
                       : "sm90_gemm_" + std::to_string(i));
    }
    f.str("cudaLaunchKernel_v7000");  // id 17
    const std::string n = std::to_string(rows());
    // Eight processes (pid 100..107), one GPU each, kernels 1 us apart on three streams.
    f.exec(
        "WITH RECURSIVE seq(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM seq WHERE i < " + n +
        " - 1) "
        "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL (start, end, deviceId, contextId, streamId, correlationId, globalPid, "
        "demangledName, shortName, registersPerThread, gridX, gridY, gridZ, blockX, blockY, blockZ, "
        "staticSharedMemory, "
        "dynamicSharedMemory, localMemoryPerThread, localMemoryTotal, gridId) "
        "SELECT i * 1000 + 200, i * 1000 + 900, i % 8, 1, 7 + i % 3, i / 8, (3 << 48) | ((100 + i % 8) << 24), "
        "1 + i % 16, 1 + i % 16, 32, 1, 1, 1, 128, 1, 1, 0, 0, 0, 0, i FROM seq");
    f.exec("WITH RECURSIVE seq(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM seq WHERE i < " + n +
           " - 1) "
           "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME SELECT i * 1000, i * 1000 + 100, 1, "
           "(3 << 48) | ((100 + i % 8) << 24) | 1, i / 8, 17, 0, NULL FROM seq");
    f.exec("WITH RECURSIVE seq(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM seq WHERE i < " + n +
           " / 100) "
           "INSERT INTO NVTX_EVENTS (start, end, eventType, globalTid, text) SELECT i * 100000 - 50, i * 100000 + "
           "99950, 59, "
           "(3 << 48) | ((100 + i % 8) << 24) | 1, 'nccl:all_reduce, op_id = 1, sizes = [[' || (1024 + i % 4) || ']]' "
           "FROM seq");
    f.close();
    return p;
  }();
  return path;
}

void read_profile(benchmark::State& state, bool by_nvtx) {
  const std::string& path = profile_path();
  pipebench::TraceOptions o;
  o.by_nvtx = by_nvtx;
  std::int64_t read = 0;
  for (auto _ : state) {
    const auto p = pipebench::read_nsys_sqlite(path, o);
    read = p.kernel_rows;
    benchmark::DoNotOptimize(p.devices.data());
  }
  state.counters["kernel_rows"] = static_cast<double>(read);
  state.counters["rows_per_s"] =
      benchmark::Counter(static_cast<double>(read), benchmark::Counter::kIsIterationInvariantRate);
  state.counters["peak_rss_MiB"] = peak_rss_mib();
}

void BM_ReadNsysByKernel(benchmark::State& state) { read_profile(state, false); }
void BM_ReadNsysByNvtx(benchmark::State& state) { read_profile(state, true); }

}  // namespace

BENCHMARK(BM_ReadNsysByKernel)->Unit(benchmark::kSecond)->Iterations(1)->UseRealTime();
BENCHMARK(BM_ReadNsysByNvtx)->Unit(benchmark::kSecond)->Iterations(1)->UseRealTime();

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  std::fprintf(stderr, "# generating a synthetic nsys export of %lld kernel rows...\n", static_cast<long long>(rows()));
  const double before = peak_rss_mib();
  (void)profile_path();
  std::fprintf(stderr, "# generated; peak RSS while generating %.1f MiB (before %.1f MiB)\n", peak_rss_mib(), before);
  std::fprintf(stderr, "# generating 8 PyTorch profiler traces of %lld events each...\n",
               static_cast<long long>(job_events()));
  (void)job_dir();
  std::fprintf(stderr, "# generated; peak RSS so far %.1f MiB\n", peak_rss_mib());
  std::fprintf(stderr, "# generating 8 CPU ranks' profiles of a 1F1B job, about %lld MB each...\n",
               static_cast<long long>(calib_bytes_per_rank() >> 20));
  (void)calib_dir();
  benchmark::RunSpecifiedBenchmarks();
  std::remove(profile_path().c_str());
  remove_job_dir();
  remove_calib_dir();
  return 0;
}

#else

int main(int argc, char** argv) {
  std::puts("# nsys part of the trace benchmark left out: this build has no SQLite (install libsqlite3-dev)");
  benchmark::Initialize(&argc, argv);
  (void)job_dir();
  (void)calib_dir();
  benchmark::RunSpecifiedBenchmarks();
  remove_job_dir();
  remove_calib_dir();
  return 0;
}

#endif
