// SPDX-License-Identifier: Apache-2.0
// The console text of `bench --plan`.
#include "report/plan_bench_printer.h"

#include "core/printf_string.h"
#include "report/console_table.h"

namespace pipebench {

std::string plan_group_text(const std::vector<int>& g) {
  std::string s = "{";
  for (std::size_t i = 0; i < g.size() && i < 6; ++i) s += (i ? "," : "") + std::to_string(g[i]);
  return s + (g.size() > 6 ? ",...}" : "}");
}

void print_plan_bench_header(std::ostream& out, const std::string& plan, const std::string& schedule,
                             std::size_t distinct_messages, std::size_t at_once_points, int nranks,
                             const std::string& backend, int plan_world) {
  out << "# pipebench bench --plan " << plan << ": " << distinct_messages << " distinct messages"
      << (schedule.empty() ? " over all schedules" : " of schedule " + schedule) << " on " << nranks << " " << backend
      << " rank" << (nranks == 1 ? "" : "s") << " (plan world " << plan_world << ")";
  if (at_once_points > 0) {
    out << ", then " << at_once_points << " gradient reduction" << (at_once_points == 1 ? "" : "s")
        << " of every group at once (\"OP xN\": N groups together)";
  }
  out << "\n";
  out << "#  op              group               elements  dtype          bytes      time (us)    algbw    busbw  "
         "#wrong  class  plan ids            batch (Megatron call)\n";
}

void print_plan_bench_row(std::ostream& out, const ResultRecord& rec, const std::string& op,
                          const std::vector<int>& group, std::int64_t elements, DType dtype, std::uint64_t bytes,
                          const std::string& link_class, const std::string& batch) {
  const std::vector<int>& p_ids = rec.plan_ids;
  std::string ids;
  for (std::size_t i = 0; i < p_ids.size() && i < 6; ++i) ids += (i ? "," : "") + std::to_string(p_ids[i]);
  if (p_ids.size() > 6) ids += ",... (" + std::to_string(p_ids.size()) + ")";
  if (!batch.empty()) ids += std::string(ids.size() < 19 ? 19 - ids.size() : 0, ' ') + " ";  // the batch column
  out << printf_string("   %-15s %-18s %10lld  %-8s %12lld  %13s  %7s  %7s  %6lld  %-5s  %s%s\n", op.c_str(),
                       plan_group_text(group).c_str(), static_cast<long long>(elements),
                       std::string(dtype_name(dtype)).c_str(), static_cast<long long>(bytes),
                       format_fixed_width(rec.time_us, 13).c_str(), format_fixed_width(rec.algbw_gbps, 7).c_str(),
                       format_fixed_width(rec.busbw_gbps, 7).c_str(), static_cast<long long>(rec.wrong),
                       link_class.empty() ? "-" : link_class.c_str(), ids.c_str(), batch.c_str());
  if (!rec.error.empty()) out << "#   error: " << rec.error << "\n";
  out.flush();
}

void print_plan_bench_verdict(std::ostream& out, const std::vector<std::string>& left_out, const SweepSummary& s) {
  for (const auto& l : left_out) out << "# left out: " << l << "\n";
  out << "# Wrong values: " << s.wrong << (s.wrong ? " FAILED" : " OK") << "\n";
  if (s.errors) out << "# Failed points: " << s.errors << "\n";
}

}  // namespace pipebench
