// SPDX-License-Identifier: Apache-2.0
// The console text of `pairs`.
#include "report/pairs_printer.h"

#include "core/printf_string.h"
#include "core/units.h"

namespace pipebench {
namespace {

std::string matrix_cell(const std::map<std::pair<int, int>, double>& busbw_gbps, int i, int j,
                        const Placement* placement) {
  auto it = busbw_gbps.find({i, j});
  if (i == j) return printf_string("%14s", "-");
  if (it == busbw_gbps.end()) return printf_string("%14s", ".");
  const GpuLink* p = placement ? placement->link(i, j) : nullptr;
  if (p && p->path_min_gbps > 0)
    return printf_string("%8.2f (%3.0f%%)", it->second, 100 * it->second / p->path_min_gbps);
  return printf_string("%14.2f", it->second);
}

}  // namespace

void print_pairs_header(std::ostream& out, int n, const std::string& backend, bool gpu_ranks,
                        const std::vector<std::uint64_t>& sizes_bytes, const Placement* placement) {
  out << "# pipebench pairs: " << n << " rank" << (n == 1 ? "" : "s") << " on the " << backend
      << " backend, one pair at a time; sizes";
  for (auto s : sizes_bytes) out << " " << format_size(s);
  out << "\n";
  if (!gpu_ranks) {
    out << "# host ranks have no link classes: the MPI backend moves host memory between processes\n";
  } else if (placement) {
    out << "#\n# link classes (nvidia-smi topo -m names)\n#       ";
    for (int j = 0; j < n; ++j) out << "  rank " << j << (j < 10 ? " " : "");
    out << "\n";
    for (int i = 0; i < n; ++i) {
      out << "  rank " << i << (i < 10 ? " " : "");
      for (int j = 0; j < n; ++j) {
        const GpuLink* p = placement->link(i, j);
        out << printf_string("%8s", p ? p->cls.label().c_str() : "?");
      }
      out << "\n";
    }
  }
  if (n < 2) out << "# 1 rank: no pair to measure (pairs needs 2 GPUs, or mpirun -np 2 or more)\n";
}

void print_pair_matrix(std::ostream& out, const std::string& title, int nranks,
                       const std::map<std::pair<int, int>, double>& busbw_gbps, const Placement* placement) {
  out << "#\n# " << title
      << "\n#   row = sender, column = receiver; GB/s per direction (% of the path's theoretical)\n";
  out << "#       ";
  for (int j = 0; j < nranks; ++j) {
    out << printf_string("%14s", ("rank " + std::to_string(j)).c_str());
  }
  out << "\n";
  for (int i = 0; i < nranks; ++i) {
    out << printf_string("  rank %-3d", i);
    for (int j = 0; j < nranks; ++j) out << matrix_cell(busbw_gbps, i, j, placement);
    out << "\n";
  }
}

void print_pairs_verdict(std::ostream& out, const SweepSummary& summary) {
  out << "#\n# Wrong values: " << summary.wrong << (summary.wrong ? " FAILED" : " OK") << "\n";
  if (summary.errors) out << "# Failed points: " << summary.errors << "\n";
  out.flush();
}

}  // namespace pipebench
