// SPDX-License-Identifier: Apache-2.0
// nccl-tests' text lines (printf formats of nccl-tests 2.19.6 src/util.cu).
#include "report/nccl_tests_text.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "core/error.h"
#include "core/printf_string.h"

namespace pipebench {

std::string nccl_tests_bus_id(const std::string& bus_id) {
  std::string bus = bus_id.empty() ? "host" : bus_id;
  if (bus.size() == 12 && bus[10] == '.') bus.resize(10);
  return bus;
}

std::string nccl_tests_device_line(int rank, int group, long pid, const std::string& host, int device,
                                   const std::string& bus_id, const std::string& model) {
  const std::string bus = nccl_tests_bus_id(bus_id);
  return printf_string("#  Rank %2d Group %2d Pid %6ld on %10s device %2d [%s] %s\n", rank, group, pid, host.c_str(),
                       device, bus.c_str(), model.c_str());
}

int nccl_version_code(const std::map<std::string, std::string>& versions) {
  const auto it = versions.find("nccl");
  int major = 0, minor = 0, patch = 0;
  if (it == versions.end() || std::sscanf(it->second.c_str(), "%d.%d.%d", &major, &minor, &patch) != 3) return 0;
  return major * 10000 + minor * 100 + patch;
}

int nccl_tests_group(const std::optional<SplitRule>& split, const SystemInfo& system, int rank) {
  const int procs = std::max(1, system.processes);
  const int per_process = std::max<int>(1, static_cast<int>(system.devices.size()) / procs);
  return split ? static_cast<int>(split->color(rank / per_process)) : 0;
}

std::string nccl_tests_device_lines(const std::optional<SplitRule>& split, const SystemInfo& system) {
  std::string out;
  for (const auto& d : system.devices) {
    out += nccl_tests_device_line(d.rank, nccl_tests_group(split, system, d.rank), d.pid, d.host, d.device, d.bus_id,
                                  d.model);
  }
  return out;
}

std::string nccl_tests_column_header(bool cputime, bool timestamps) {
  const char* time = cputime ? "cputime" : "time";
  const int ts_pad = timestamps ? 19 : 0;
  std::string out =
      printf_string("# %10s  %12s  %8s  %6s  %6s           out-of-place                       in-place          \n", "",
                    "", "", "", "");
  out += printf_string("# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s %*s\n", "size", "count",
                       "type", "redop", "root", time, "algbw", "busbw", "#wrong", time, "algbw", "busbw", "#wrong",
                       ts_pad, timestamps ? "timestamp" : "");
  out += printf_string("# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s %*s\n", "(B)", "(elements)",
                       "", "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)", "", ts_pad,
                       timestamps ? "%Y-%m-%d %H:%M:%S" : "");
  return out;
}

std::string nccl_tests_out_of_bounds_line(std::int64_t count) {
  return printf_string("# %-20s : %lld %s\n", "Out of bounds values", static_cast<long long>(count),
                       count ? "FAILED" : "OK");
}

bool below_min_busbw(double avg_gbps, std::optional<double> min_gbps) { return min_gbps && avg_gbps < *min_gbps * 0.9; }

std::string nccl_tests_avg_busbw_line(double avg_gbps, std::optional<double> min_gbps) {
  return printf_string("# %-20s : %g %s\n", "Avg bus bandwidth", avg_gbps,
                       !min_gbps ? "" : (below_min_busbw(avg_gbps, min_gbps) ? "FAILED" : "OK"));
}

std::optional<double> min_busbw_from_environment() {
  const char* v = std::getenv("NCCL_TESTS_MIN_BW");
  if (!v || !*v) return std::nullopt;
  char* end = nullptr;
  const double gbps = std::strtod(v, &end);
  if (*end != '\0' || !std::isfinite(gbps) || gbps < 0) {
    throw UsageError(std::string("NCCL_TESTS_MIN_BW '") + v + "': not a bus bandwidth in GB/s (a finite number >= 0)");
  }
  return gbps;
}

void MinBusBwCheck::add(const ResultRecord& r) {
  if (!is_table_row(r)) return;
  if (r.op != op_) end_op();  // a new op: the table of the last one closed (console_table)
  op_ = r.op;
  if (r.error.empty()) totals_.add(r.busbw_gbps, 0);
}

void MinBusBwCheck::end_op() {
  if (totals_.placements() > 0 && below_min_busbw(totals_.avg_busbw_gbps(), min_gbps_)) failed_ = true;
  totals_.reset();
}

}  // namespace pipebench
