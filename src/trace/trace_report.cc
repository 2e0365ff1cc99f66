// SPDX-License-Identifier: Apache-2.0
// Trace tables and JSON.
#include "trace/trace_report.h"

#include <cstdio>
#include <string>

#include "core/printf_string.h"
#include "core/version.h"

namespace pipebench {
namespace {

using json = nlohmann::json;

std::string device_label(const DeviceProfile& d) {
  if (d.device < 0) return "device ? (collectives whose device the profile does not say)";
  return "device " + std::to_string(d.device) + (d.name.empty() ? "" : "  " + d.name);
}

std::string percent(double share) { return printf_string("%.2f%%", 100.0 * share); }

void print_check(std::ostream& out, const PlanCheck& c) {
  out << "#\n# against the plan: schedule " << c.schedule.label() << ", " << c.schedule_reason << "\n";
  out << "# iterations in the profile: " << c.iterations << " (" << c.iterations_source << ")\n";
  for (const auto& r : c.ranks) {
    out << "#\n# rank " << r.rank << " (device " << r.device << "): ";
    if (!r.listed) {
      out << "not listed in the plan\n";
      continue;
    }
    out << r.mismatches << " mismatching row" << (r.mismatches == 1 ? "" : "s") << "; communication share measured "
        << percent(r.comm_share);
    if (r.predicted_comm_share) out << ", predicted " << percent(*r.predicted_comm_share);
    out << "\n#   status     op                   elements  dtype (plan/seen)      per iter  expected      seen  "
           "what\n";
    for (const auto& row : r.rows) {
      const std::string dtypes =
          (row.planned_dtype.empty() ? "-" : row.planned_dtype) + "/" + (row.seen_dtype.empty() ? "-" : row.seen_dtype);
      out << printf_string("    %-10s %-16s %12s  %-20s %9lld %9lld %9lld  %s\n", row.status.c_str(), row.op.c_str(),
                           row.elements >= 0 ? std::to_string(row.elements).c_str() : "-", dtypes.c_str(),
                           static_cast<long long>(row.planned_per_iteration), static_cast<long long>(row.expected),
                           static_cast<long long>(row.seen), row.what.c_str());
    }
  }
  for (const auto& n : c.notes) out << "# note: " << n << "\n";
}

}  // namespace

void print_collective_row(std::ostream& out, const CollectiveRow& c) {
  const auto bytes = c.bytes();
  out << printf_string("    %-18s %13s %14s  %-12s %7lld  %5s  %s\n", c.op.c_str(),
                       c.elements >= 0 ? std::to_string(c.elements).c_str() : "-",
                       bytes ? std::to_string(*bytes).c_str() : "-", c.dtype.empty() ? "-" : c.dtype.c_str(),
                       static_cast<long long>(c.count), c.group_size >= 0 ? std::to_string(c.group_size).c_str() : "-",
                       c.source.c_str());
}

void print_trace_report(std::ostream& out, const TraceProfile& p, const PlanCheck* check, int top_rows) {
  out << "# pipebench " << kToolVersion << " trace  " << p.path << "  (" << p.source;
  if (!p.format_version.empty())
    out << (p.source == "nsys-sqlite" ? ", export schema " : ", schemaVersion ") << p.format_version;
  out << ")\n";
  out << "# " << p.kernel_rows << " kernel rows read, " << p.skipped_rows << " skipped";
  if (p.source == "nsys-sqlite") {
    out << "; " << p.nvtx_ranges << " NVTX push/pop ranges, " << p.collective_texts << " collective texts ("
        << p.unparsed_texts << " unparsed)";
    if (p.nccl_ranges > 0) {
      out << ", " << p.nccl_ranges << " NCCL API ranges (" << p.nccl_payload_sizes << " with a payload size)";
    }
  } else {
    out << "; " << p.nvtx_ranges << " record_function ranges, " << p.profiler_steps << " profiler steps";
  }
  out << "\n";
  if (p.rank) out << "# rank " << *p.rank << " of " << p.world_size.value_or(0) << " (distributedInfo)\n";
  for (const auto& [reason, n] : p.skipped_by_reason) out << "# skipped " << n << ": " << reason << "\n";
  out << "# share = kernel time / the device's span (first kernel start to last kernel end); kernels on "
         "several streams overlap, so shares can add past 100%\n";
  out << "# busy and communication = union of all (of NCCL's) kernel intervals / span\n";
  for (const auto& d : p.devices) {
    out << "#\n# " << device_label(d);
    if (d.device >= 0) {
      out << printf_string("  span %.3f ms  busy %s  communication %s  (%lld kernels)", ns_to_us(d.span_ns()) / 1000.0,
                           percent(d.share(d.busy_ns)).c_str(), percent(d.share(d.comm_ns)).c_str(),
                           static_cast<long long>(d.kernels));
    }
    out << "\n";
    if (!d.rows.empty()) {
      out << "#     share     count     total_us      mean_us       min_us       max_us  stream  "
          << (p.by == "nvtx" ? "NVTX range (or kernel)" : "kernel") << "\n";
      std::int64_t total_ns = 0, count = 0;
      for (const auto& r : d.rows) total_ns += r.total_ns, count += r.count;
      int shown = 0;
      for (const auto& r : d.rows) {
        if (top_rows > 0 && shown++ == top_rows) {
          out << "#   ... " << d.rows.size() - static_cast<std::size_t>(top_rows)
              << " more rows (--top 0 shows all; --json has all)\n";
          break;
        }
        out << printf_string("   %7s %9lld %12.3f %12.3f %12.3f %12.3f  %6lld  %s%s\n",
                             percent(d.share(r.total_ns)).c_str(), static_cast<long long>(r.count),
                             ns_to_us(r.total_ns), ns_to_us(r.total_ns) / static_cast<double>(r.count),
                             ns_to_us(r.min_ns), ns_to_us(r.max_ns), static_cast<long long>(r.stream),
                             r.comm ? "[comm] " : "", r.name.c_str());
      }
      out << printf_string("   %7s %9lld %12.3f %12s %12s %12s  %6s  total\n", percent(d.share(total_ns)).c_str(),
                           static_cast<long long>(count), ns_to_us(total_ns), "", "", "", "");
    }
    if (!d.collectives.empty())
      out << "#\n#   collective              elements          bytes  dtype          count  group  source\n";
    for (const auto& c : d.collectives) print_collective_row(out, c);
  }
  bool any_comm = false, any_coll = false;
  for (const auto& d : p.devices) any_comm |= d.comm_ns > 0, any_coll |= !d.collectives.empty();
  if (any_comm && !any_coll) {
    out << "#\n# NCCL kernels but no collective sizes: profile with nsys -t cuda,nvtx under "
           "torch.autograd.profiler.emit_nvtx(record_shapes=True), or with torch.profiler (record_param_comms)\n";
  }
  for (const auto& n : p.notes) out << "# note: " << n << "\n";
  if (check != nullptr) print_check(out, *check);
}

}  // namespace pipebench
