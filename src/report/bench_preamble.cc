// SPDX-License-Identifier: Apache-2.0
// bench's preamble and nccl-tests' (formats: nccl-tests 2.19.6 src/common.cu run(), src/util.cu).
#include "report/bench_preamble.h"

#include "core/printf_string.h"
#include "core/version.h"
#include "report/nccl_tests_text.h"

namespace pipebench {
namespace {

const char* rank_stat_name(RankStat s) {
  static const char* const kNames[] = {"rank 0", "mean", "min", "max"};
  return kNames[static_cast<int>(s)];
}

void print_nccl_tests_preamble(std::ostream& out, const BenchPreamble& p) {
  const MeasureSettings& m = p.measure;
  const std::vector<std::uint64_t>& sizes = p.sweep.sizes_bytes;
  const int code = nccl_version_code(p.versions);
  const bool factor = p.step_factor > 1;
  // nccl-tests prints its own version; the version here is the format's, then who wrote it.
  out << printf_string("# nccl-tests version %s nccl-headers=%d nccl-library=%d (pipebench %s, %s)\n",
                       kNcclTestsFormatVersion, code, code, kToolVersion, p.backend.c_str())
      << "# Collective test starting: " << p.nccl_tests_program << "\n";
  out << printf_string(
      "# nThread %d nGpus %d minBytes %llu maxBytes %llu step: %llu(%s) warmup iters: %d iters: %d agg "
      "iters: %d validation: %d graph: %d unalign: %d\n",
      p.threads, p.nccl_tests_gpus, static_cast<unsigned long long>(sizes.empty() ? 0 : sizes.front()),
      static_cast<unsigned long long>(sizes.empty() ? 0 : sizes.back()),
      static_cast<unsigned long long>(factor ? p.step_factor : p.step_bytes), factor ? "factor" : "bytes", m.warmup,
      p.per_iter_timing ? 1 : m.iters, m.agg, m.checks, m.graph ? 1 : 0, m.unalign_elems);
  if (m.blocking == 1) out << "# Blocking Enabled: wait and barrier after each inner iteration (-m) \n";
  if (m.blocking == 2) out << "# Blocking Enabled: wait after each inner iteration (-m), no barrier \n";
  if (m.blocking == 3) {
    out << "# Blocking Enabled: wait and barrier after each outer iteration (-n); time excludes barrier \n";
  }
}

// The lines after the settings line that only some flags add: --group, --split, -m/-z/-C/-u/-a, --pairs.
void print_flag_lines(std::ostream& out, const BenchPreamble& p) {
  const MeasureSettings& m = p.measure;
  const SweepSpec& s = p.sweep;
  if (!s.group.empty()) {
    out << "# group";
    for (int g : s.group) out << " " << g;
    out << " (the ops run on these ranks only)\n";
  }
  if (s.split) {
    out << "# split " << s.split->text << ": groups of processes running at once:";
    for (const auto& g : split_groups(*s.split, p.system.processes)) {
      out << " {";
      for (std::size_t i = 0; i < g.size(); ++i) out << (i ? "," : "") << g[i];
      out << "}";
    }
    out << "; rows: time over all ranks, busbw per group; the files also hold each group's own records\n";
  }
  if (m.agg > 1 || m.blocking > 0 || m.cputime || m.unalign_elems > 0 || m.rank_stat != RankStat::kMax) {
    out << "# agg iters " << m.agg << "  blocking " << m.blocking << "  unalign " << m.unalign_elems
        << "  time over ranks: " << rank_stat_name(m.rank_stat)
        << (m.cputime ? "  time column: host time spent issuing the ops (-C)" : "") << "\n";
  }
  if (!s.params.pairs.empty()) {
    out << "# pairs";
    for (const auto& pair : s.params.pairs) out << " " << pair.src << ":" << pair.dst;
    out << (s.params.bidirectional ? " (each in both directions at once)" : " (one way)")
        << "; algbw = busbw = one message's bytes / time\n";
  }
}

}  // namespace

void print_bench_preamble(std::ostream& out, const BenchPreamble& p) {
  if (!p.nccl_tests_program.empty()) {
    print_nccl_tests_preamble(out, p);
    out << "#\n# Using devices\n" << nccl_tests_device_lines(p.sweep.split, p.system);
    out.flush();
    return;
  }
  const MeasureSettings& m = p.measure;
  const int processes = p.system.processes;
  out << "# pipebench " << kToolVersion << "  backend " << p.backend;
  for (const auto& [k, v] : p.versions) out << "  " << k << " " << v;
  out << "\n# nranks " << p.nranks << " (" << processes << " process" << (processes == 1 ? "" : "es") << " x "
      << p.ranks_per_process << " " << (p.gpu_ranks ? "GPU" : "host rank") << ")  warmup " << m.warmup << "  iters "
      << m.iters << (m.point_budget_s > 0 ? " (max; fewer for slow points)" : "") << "  reps " << m.reps
      << "  validation " << m.checks << "  graph " << (m.graph ? 1 : 0) << "\n";
  print_flag_lines(out, p);
  out << "# time = median over reps of (batch time, "
      << (m.rank_stat == RankStat::kMax ? "slowest rank" : rank_stat_name(m.rank_stat) + std::string(" over ranks"))
      << ") / iters\n#\n# Using devices\n"
      << nccl_tests_device_lines(p.sweep.split, p.system);
  out.flush();
  if (!p.link_class.empty()) out << "# link class of these ranks (the worst pair): " << p.link_class << "\n";
}

}  // namespace pipebench
