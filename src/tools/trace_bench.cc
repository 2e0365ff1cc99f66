// SPDX-License-Identifier: Apache-2.0
// `make bench` (trace part): reads a synthetic Nsight Systems export of 10 million kernel rows (with a
// CUDA runtime row per kernel and an NVTX range per 100 launches) by kernel and by NVTX range, and
// reports the time and the peak resident memory. Target (issue #6): well under a minute, with memory
// bounded (it must not grow with the rows). PIPEBENCH_TRACE_ROWS overrides the row count.
#include <benchmark/benchmark.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "trace/nsys_reader.h"

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
  benchmark::RunSpecifiedBenchmarks();
  std::remove(profile_path().c_str());
  return 0;
}

#else

int main() {
  std::puts("# trace benchmark left out: this build has no SQLite (install libsqlite3-dev)");
  return 0;
}

#endif
