// SPDX-License-Identifier: Apache-2.0
// Shared by the nccl-tests text and JSON readers.
#include "io/nccl_tests_parts.h"

#include <algorithm>
#include <set>

#include "collectives/registry.h"
#include "core/error.h"
#include "core/terminal_text.h"

namespace pipebench {

namespace {

// nccl-tests' BIN_FILES_LIST (src/Makefile) as words without the _perf suffix, each with the op it names:
// the binaries of pipebench's ops (Op aliases) and those it has no op for, which name themselves.
std::vector<std::pair<std::string, std::string>> nccl_tests_words() {
  constexpr std::string_view kSuffix = "_perf";
  std::vector<std::pair<std::string, std::string>> words;
  for (const Op* op : OpRegistry::instance().ops()) {
    const std::string_view binary = op->aliases().nccl_tests;
    if (binary.size() > kSuffix.size()) {
      words.emplace_back(binary.substr(0, binary.size() - kSuffix.size()), op->name());
    }
  }
  for (const char* other : {"alltoallv", "hypercube"}) words.emplace_back(other, other);
  return words;
}

}  // namespace

std::string nccl_tests_op(std::string_view name) {
  const auto slash = name.find_last_of('/');
  if (slash != std::string_view::npos) name.remove_prefix(slash + 1);
  std::string s(name);
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  // Longest first: "alltoallv" before "alltoall", "reduce_scatter" before "reduce".
  static const auto by_length = [] {
    auto v = nccl_tests_words();
    std::stable_sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return a.first.size() > b.first.size(); });
    return v;
  }();
  for (const auto& [word, op] : by_length) {
    std::string squeezed = word;
    squeezed.erase(std::remove(squeezed.begin(), squeezed.end(), '_'), squeezed.end());
    if (s.find(word) != std::string::npos || s.find(squeezed) != std::string::npos) return op;
  }
  return "";
}

std::string nccl_tests_op_list() {
  std::string list;
  for (const auto& [word, op] : nccl_tests_words()) list += (list.empty() ? "" : ", ") + op;
  return list;
}

std::string nccl_tests_log_op(std::string_view program) {
  const auto slash = program.find_last_of('/');
  if (slash != std::string_view::npos) program.remove_prefix(slash + 1);
  for (const auto& [word, op] : nccl_tests_words()) {
    if (program == word || program == word + "_perf" || program == word + "_perf_mpi") return op;
  }
  return "";
}

std::string nccl_version_text(long code) {
  if (code <= 0 || code > 9999999) return "";
  const bool new_scheme = code >= 20900;  // NCCL_VERSION(2,9,0) = 20900 (nccl.h)
  const long major = new_scheme ? code / 10000 : code / 1000;
  const long minor = new_scheme ? code % 10000 / 100 : code % 1000 / 100;
  const long patch = code % 100;
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
}

namespace {

// Ranks from the device lines: rank = proc*nThreads*nGpus + i (nccl-tests src/common.cu run()), so each
// listed rank stands for its process's nThreads*nGpus ranks even when a JSON file lists one per process
// or a text line was cut at 2048 characters.
void place_ranks(NcclTestsLog& log) {
  // A header claiming more than 1024 ranks per process (nThread x nGpus) is not believed: each listed
  // device then stands for itself.
  const long long claimed = static_cast<long long>(std::max(1, log.nthreads)) * std::max(1, log.ngpus);
  const int per_process = claimed <= 1024 ? static_cast<int>(claimed) : 1;
  std::map<int, int> group_of_process;
  int rank0_group = 0, lowest = 1 << 30;
  for (const auto& d : log.devices) {
    group_of_process[d.rank / per_process] = d.group;
    if (d.rank < lowest) lowest = d.rank, rank0_group = d.group;
  }
  std::set<int> groups;
  log.ranks.clear();
  for (const auto& [process, group] : group_of_process) {
    groups.insert(group);
    if (group != rank0_group) continue;
    for (int i = 0; i < per_process; ++i) log.ranks.push_back(process * per_process + i);
  }
  log.groups = static_cast<int>(groups.size());
  log.nranks = static_cast<int>(log.ranks.size());
}

bool nccl_tests_name(const std::string& s) {
  if (s.empty() || s.size() > 16) return false;
  for (const char c : s) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
  }
  return true;
}

}  // namespace

std::string nccl_tests_names_problem(const std::string& dtype, const std::string& redop) {
  if (!nccl_tests_name(dtype) || !nccl_tests_name(redop)) return "with a type or redop that is no name";
  for (const char* name : {"sum", "prod", "max", "min", "avg", "mulsum", "none"}) {
    if (redop == name) return "";
  }
  return "with a reduction nccl-tests does not have";
}

void finish_log(NcclTestsLog& log, const NcclTestsHints& hints, std::map<std::string, int>& skipped) {
  if (!hints.op.empty() && nccl_tests_op(hints.op) != hints.op) {
    throw UsageError("--op " + hints.op + ": not an nccl-tests op (" + nccl_tests_op_list() + ")");
  }
  log.op = nccl_tests_log_op(log.program);
  if (log.op.empty()) log.op = hints.op;
  // A binary name that is none of nccl-tests' (garbled, or an escape sequence in it) says nothing: neither
  // a part of it ("reduce" in "all\x1b[0m_reduce_perf") nor the file name stands for the op it lost.
  const bool unknown_binary = log.op.empty() && !log.program.empty();
  if (log.op.empty() && !unknown_binary) log.op = nccl_tests_op(hints.file_name);
  if (!log.devices.empty()) {
    place_ranks(log);
  } else if (hints.nranks > 0) {
    log.nranks = hints.nranks;
    for (int r = 0; r < hints.nranks; ++r) log.ranks.push_back(r);
  }
  const auto drop = [&](const std::string& why) {
    if (!log.records.empty()) skipped[why] += static_cast<int>(log.records.size() / 2);
    log.records.clear();
  };
  if (unknown_binary) {
    return drop("table rows of a test whose binary name '" + one_line(log.program) +
                "' is no nccl-tests binary (give --op)");
  }
  if (log.op.empty()) {
    return drop("table rows of a test that does not name its op (logs before 2.17.4: give --op)");
  }
  if (log.nranks == 0) return drop("table rows of a test without device lines (give --nranks)");
  for (auto& r : log.records) {
    r.op = log.op;
    r.nranks = log.nranks;
    r.ranks = log.ranks;
    // nccl-tests times -n iterations of -m grouped ops in one host-clock interval (its "batch").
    r.ops_per_batch = std::max(1, log.iters) * std::max(1, log.agg_iters);
    r.warmup = log.warmup;
    r.graph = log.graph > 0;
    r.stats.samples = r.stats.samples > 0 ? r.stats.samples : 1;
    if (r.stats.median_us <= 0) r.stats.median_us = r.stats.mean_us = r.stats.min_us = r.stats.max_us = r.time_us;
    if (r.stats.p95_us <= 0) r.stats.p95_us = r.stats.max_us;
  }
}

}  // namespace pipebench
