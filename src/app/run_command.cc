// SPDX-License-Identifier: Apache-2.0
// `pipebench run`.
#include "app/run_command.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "app/bench_command.h"
#include "backend/backend_factory.h"
#include "core/error.h"
#include "core/sizes.h"
#include "core/units.h"
#include "report/console_table.h"
#include "report/system_info.h"

namespace pipebench {
namespace {

bool started_by_launcher() {
  return std::getenv("OMPI_COMM_WORLD_SIZE") || std::getenv("PMIX_RANK") || std::getenv("PMI_RANK");
}

std::string find_in_path(const std::string& program) {
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/bin:/bin";
  std::size_t start = 0;
  while (start <= dirs.size()) {
    const std::size_t colon = dirs.find(':', start);
    const std::string dir = dirs.substr(start, colon == std::string::npos ? std::string::npos : colon - start);
    const std::string candidate = (dir.empty() ? "." : dir) + "/" + program;
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
    if (colon == std::string::npos) break;
    start = colon + 1;
  }
  return {};
}

void print_summary(std::ostream& out, const std::vector<ResultRecord>& records, const std::string& dir) {
  out << "#\n# Summary (files in " << dir << ")\n"
      << "#  op               ranks   latency (us)   at size   peak busbw (GB/s)   at size   wrong   failed\n";
  std::vector<std::string> ops;
  for (const auto& r : records) {
    if (std::find(ops.begin(), ops.end(), r.op) == ops.end()) ops.push_back(r.op);
  }
  std::uint64_t wrong_total = 0;
  int failed_total = 0;
  for (const auto& op : ops) {
    const ResultRecord* smallest = nullptr;
    const ResultRecord* peak = nullptr;
    std::uint64_t wrong = 0;
    int failed = 0;
    int nranks = 0;
    for (const auto& r : records) {
      if (r.op != op) continue;
      nranks = r.nranks;
      if (!r.error.empty()) {
        ++failed;
        continue;
      }
      if (r.wrong > 0) wrong += static_cast<std::uint64_t>(r.wrong);
      // Latency from out-of-place rows: in place on one rank, NCCL has nothing to do.
      if (!r.in_place && r.size_bytes > 0 && (!smallest || r.size_bytes < smallest->size_bytes ||
                               (r.size_bytes == smallest->size_bytes && r.time_us < smallest->time_us))) {
        smallest = &r;
      }
      if (!peak || r.busbw_gbps > peak->busbw_gbps) peak = &r;
    }
    char buf[256];
    std::snprintf(buf, sizeof buf, "   %-15s %6d   %12s   %7s   %17s   %7s   %5llu   %6d\n", op.c_str(), nranks,
                  smallest ? format_fixed_width(smallest->time_us, 7).c_str() : "-",
                  smallest ? format_size(smallest->size_bytes).c_str() : "-",
                  peak ? format_fixed_width(peak->busbw_gbps, 7).c_str() : "-",
                  peak ? format_size(peak->size_bytes).c_str() : "-", static_cast<unsigned long long>(wrong), failed);
    out << buf;
    wrong_total += wrong;
    failed_total += failed;
  }
  if (!records.empty() && records.front().nranks == 1) {
    out << "# 1 rank: nothing crosses a link; busbw is 0 by definition (factor (n-1)/n), times are local copies\n";
  }
  if (wrong_total == 0 && failed_total == 0) {
    out << "# Verdict: every value checked correct, no point failed\n";
  } else {
    out << "# Verdict: FAILED: " << wrong_total << " wrong values, " << failed_total << " failed points\n";
  }
  out.flush();
}

}  // namespace

void relaunch_under_mpirun_if_needed(const RunOptions& o, const std::vector<std::string>& args) {
  if (started_by_launcher() || !built_with_mpi() || o.host_ranks <= 1) return;
  if (o.backend == BackendKind::kNccl) return;
  std::string why;
  if (o.backend == BackendKind::kAuto && visible_gpus(&why) > 0) return;
  const std::string mpirun = find_in_path("mpirun");
  if (mpirun.empty()) {
    std::printf("# no GPU visible (%s) and no mpirun on PATH: running on the MPI backend with 1 host rank\n",
                why.c_str());
    return;
  }
  std::printf("# no GPU visible (%s): running on the MPI backend with %d host ranks (mpirun -np %d)\n",
              why.empty() ? "--backend mpi" : why.c_str(), o.host_ranks, o.host_ranks);
  std::fflush(stdout);
  if (geteuid() == 0) {  // Open MPI refuses root without these (its own documented override)
    setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 0);
    setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 0);
  }
  const std::string self = std::filesystem::read_symlink("/proc/self/exe").string();
  std::vector<std::string> words = {mpirun, "-np", std::to_string(o.host_ranks), "--oversubscribe", self};
  words.insert(words.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  execv(mpirun.c_str(), argv.data());
  throw Error("execv(" + mpirun + ") failed");
}

int run_run_command(const RunOptions& o, const World& world) {
  const BackendKind kind = resolve_backend(o.backend, world);
  BenchConfig c;
  c.ops = {"all_reduce", "all_gather", "sendrecv"};
  c.sizes_bytes = sweep_sizes(o.min_bytes, o.max_bytes, o.factor, 0);
  c.backend = kind;
  c.gpus_per_process = o.gpus_per_process;
  if (c.gpus_per_process == 0) {
    c.gpus_per_process = kind == BackendKind::kNccl && world.size() == 1 ? std::max(1, visible_gpus(nullptr)) : 1;
  }
  c.iters = 20;
  c.warmup = 3;
  c.reps = 5;
  c.checks = 1;
  c.point_budget_s = o.point_budget_s;
  c.timeout_s = o.timeout_s;
  c.benchmark_args = o.benchmark_args;

  // The run folder, named by rank 0 and shared so every rank agrees.
  std::string dir = o.out_dir;
  if (dir.empty()) {
    std::string stamp = utc_timestamp();
    stamp.erase(std::remove(stamp.begin(), stamp.end(), ':'), stamp.end());
    stamp.erase(std::remove(stamp.begin(), stamp.end(), '-'), stamp.end());
    dir = "results/runs/" + world.host() + "-" + stamp;
  }
  dir = world.broadcast(dir, 0);
  std::string mkdir_error;
  if (world.rank() == 0) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) mkdir_error = "--out: cannot create '" + dir + "': " + ec.message();
  }
  if (!world.all(mkdir_error.empty())) {
    if (!mkdir_error.empty()) throw UsageError(mkdir_error);
    return static_cast<int>(ExitCode::kUsage);
  }
  c.json_path = dir + "/results.json";
  c.csv_path = dir + "/results.csv";

  // Like nccl-tests' "Reducing maxBytes": the defaults must fit the machine, so drop sizes that don't.
  auto backend = make_backend(c.backend, world, c.gpus_per_process);
  {
    while (true) {
      try {
        validate_for_backend(c, *backend, world);
        break;
      } catch (const UsageError& e) {
        if (c.sizes_bytes.size() <= 1) throw;
        if (world.rank() == 0) {
          std::cout << "# reducing the largest size to " << format_size(c.sizes_bytes[c.sizes_bytes.size() - 2])
                    << ": " << e.what() << "\n";
        }
        c.sizes_bytes.pop_back();
      }
    }
  }
  std::vector<ResultRecord> records;
  const int status = run_bench_on(*backend, c, world, &records);
  if (world.rank() == 0) print_summary(std::cout, records, dir);
  return status;
}

}  // namespace pipebench
