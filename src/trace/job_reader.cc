// SPDX-License-Identifier: Apache-2.0
// Whole-job profile reading.
#include "trace/job_reader.h"

#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>
#include <regex>

#include "core/error.h"
#include "core/file_io.h"
#include "core/text.h"
#include "trace/each_file.h"
#include "trace/file_format.h"
#include "trace/kineto_reader.h"
#include "trace/nsys_reader.h"

namespace pipebench {
namespace {

// "rank2" before "rank10": digit runs compare as numbers.
bool natural_less(const std::string& a, const std::string& b) {
  std::size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (std::isdigit(static_cast<unsigned char>(a[i])) && std::isdigit(static_cast<unsigned char>(b[j]))) {
      // The run of digits at `at`, without its leading zeros; `at` moves past it.
      const auto number = [](const std::string& s, std::size_t& at) {
        const std::size_t end = std::min(s.find_first_not_of("0123456789", at), s.size());
        const std::size_t from = std::min(s.find_first_not_of('0', at), end);
        at = end;
        return s.substr(from, end - from);
      };
      const std::string x = number(a, i), y = number(b, j);
      if (x.size() != y.size()) return x.size() < y.size();
      if (x != y) return x < y;
      continue;
    }
    if (a[i] != b[j]) return a[i] < b[j];
    ++i, ++j;
  }
  return a.size() - i < b.size() - j;
}

TraceProfile read_profile(const std::string& path, const TraceOptions& options) {
  const TraceFormat format = detect_trace_format(path);
  if (format == TraceFormat::kSqlite) return read_nsys_sqlite(path, options);
  if (options.demangled) throw UsageError("--demangled: applies to Nsight Systems exports only (" + path + ")");
  return read_kineto_json(path, options);
}

// The device a rank ran on: the one with the most kernels (a rank of a torchrun job has one).
RankBreakdown breakdown(TraceProfile profile, std::int64_t iterations) {
  RankBreakdown r;
  const auto d = std::max_element(profile.devices.begin(), profile.devices.end(),
                                  [](const DeviceProfile& a, const DeviceProfile& b) { return a.kernels < b.kernels; });
  if (profile.devices.size() > 1) {
    profile.notes.push_back("kernels on " + std::to_string(profile.devices.size()) + " devices; the job view shows " +
                            "device " + std::to_string(d->device) + " (the most kernels)");
  }
  r.device = d->device;
  r.start_ns = d->active_first_ns;
  r.end_ns = d->active_last_ns;
  r.span_ns = d->active_last_ns - d->active_first_ns;
  r.active_ns = d->active_ns;
  r.compute_ns = d->compute_ns;
  r.comm_ns = d->comm_ns;
  r.overlap_ns = std::max<std::int64_t>(0, d->compute_ns + d->comm_ns - d->busy_ns);
  r.compute_only_ns = r.compute_ns - r.overlap_ns;
  r.comm_only_ns = r.comm_ns - r.overlap_ns;
  r.memory_only_ns = std::max<std::int64_t>(0, d->active_ns - d->busy_ns);
  r.idle_ns = std::max<std::int64_t>(0, r.span_ns - d->active_ns);
  r.memcpy_count = d->memcpy_count;
  r.memset_count = d->memset_count;
  r.memcpy_bytes = d->memcpy_bytes;
  r.memset_bytes = d->memset_bytes;
  if (iterations > 0) {
    r.iterations = iterations, r.iterations_source = "--iterations";
  } else if (profile.profiler_steps > 0) {
    r.iterations = profile.profiler_steps, r.iterations_source = "ProfilerStep";
  } else {
    r.iterations = 1, r.iterations_source = "whole profile";
  }
  r.profile = std::move(profile);
  return r;
}

void require_kernels(const TraceProfile& p) {
  if (p.kernel_rows > 0) return;
  if (!p.damage.empty()) throw UsageError(p.path + ": damaged before any kernel could be read (" + p.damage + ")");
  throw UsageError(p.path + ": no GPU kernel in this profile (" + std::to_string(p.skipped_rows) + " rows skipped)");
}

// Ranks by distributedInfo, else the file name, else first_rank + position; duplicates are an error.
void assign_ranks(std::vector<RankBreakdown>& ranks, const JobReadOptions& o) {
  int next = o.first_rank.value_or(0);
  for (auto& r : ranks) {
    if (r.profile.rank) {
      r.rank = *r.profile.rank, r.rank_source = "distributedInfo";
    } else if (auto n = rank_from_file_name(r.profile.path)) {
      r.rank = *n, r.rank_source = "file name";
    } else {
      r.rank = next++, r.rank_source = o.first_rank ? "--first-rank" : "order";
    }
  }
  std::map<int, std::string> seen;
  for (const auto& r : ranks) {
    auto [it, fresh] = seen.emplace(r.rank, r.profile.path);
    if (!fresh) {
      throw UsageError(o.flag + ": rank " + std::to_string(r.rank) + " twice: " + it->second + " and " +
                       r.profile.path + " (" + r.rank_source + "); give each rank's file once");
    }
  }
  std::stable_sort(ranks.begin(), ranks.end(),
                   [](const RankBreakdown& a, const RankBreakdown& b) { return a.rank < b.rank; });
}

void align(JobProfile& job, const std::string& method) {
  std::vector<RankClock> clocks;
  for (const auto& r : job.ranks) {
    const auto d = std::find_if(r.profile.devices.begin(), r.profile.devices.end(),
                                [&](const DeviceProfile& dev) { return dev.device == r.device; });
    clocks.push_back(RankClock{r.profile.epoch_ns, &d->comm_marks, r.start_ns});
  }
  job.alignment = align_rank_clocks(clocks, method);
  std::int64_t first = 0, last = 0;
  for (std::size_t i = 0; i < job.ranks.size(); ++i) {
    auto& r = job.ranks[i];
    r.start_ns += job.alignment.offset_ns[i];
    r.end_ns += job.alignment.offset_ns[i];
    first = i == 0 ? r.start_ns : std::min(first, r.start_ns);
    last = i == 0 ? r.end_ns : std::max(last, r.end_ns);
    for (auto& d : r.profile.devices) d.comm_marks.clear();  // done with them: keep the summary small
  }
  job.job_span_ns = last - first;
}

void name_extremes(JobProfile& job) {
  const RankBreakdown* slow = nullptr;
  const RankBreakdown* waits = nullptr;
  for (const auto& r : job.ranks) {
    if (slow == nullptr || r.compute_ns > slow->compute_ns) slow = &r;
    if (waits == nullptr || r.not_computing_ns() > waits->not_computing_ns()) waits = &r;
  }
  if (slow != nullptr) job.slowest_rank = slow->rank, job.most_waiting_rank = waits->rank;
}

void find_missing(JobProfile& job) {
  int top = job.ranks.empty() ? -1 : job.ranks.back().rank;
  for (const auto& r : job.ranks) {
    if (r.profile.world_size) job.world_size = std::max(job.world_size.value_or(0), *r.profile.world_size);
  }
  if (job.world_size) top = std::max(top, *job.world_size - 1);
  std::size_t k = 0;
  for (int rank = 0; rank <= top; ++rank) {
    while (k < job.ranks.size() && job.ranks[k].rank < rank) ++k;
    if (k == job.ranks.size() || job.ranks[k].rank != rank) job.missing_ranks.push_back(rank);
  }
}

// Files are read a few at a time (trace/each_file.h), each streamed by one thread: memory holds at most that many
// files' kernels, plus every rank's summary.
std::vector<RankBreakdown> read_ranks(const std::vector<std::string>& files, const TraceOptions& options,
                                      const JobReadOptions& o) {
  return read_each_file<RankBreakdown>(files.size(), [&](std::size_t i) {
    TraceProfile p = read_profile(files[i], options);
    require_kernels(p);
    return breakdown(std::move(p), o.iterations);
  });
}

}  // namespace

std::vector<std::string> expand_trace_inputs(const std::string& flag, const std::vector<std::string>& inputs) {
  std::vector<std::string> files;
  for (const auto& in : inputs) {
    struct stat st {};
    if (::stat(in.c_str(), &st) != 0) throw UsageError(flag + " " + in + ": no such file or directory");
    if (!S_ISDIR(st.st_mode)) {
      files.push_back(in);
      continue;
    }
    std::vector<std::string> found = list_folder_inputs(flag, in, [](const std::string& name) {
      return ends_with(name, ".json") || ends_with(name, ".json.gz") || ends_with(name, ".sqlite");
    });
    if (found.empty())
      throw UsageError(flag + " " + in + ": no *.json, *.json.gz or *.sqlite profile in this directory");
    std::sort(found.begin(), found.end(), natural_less);
    files.insert(files.end(), found.begin(), found.end());
  }
  return files;
}

std::optional<int> rank_from_file_name(const std::string& path) {
  std::string name = std::filesystem::path(path).filename().string();
  std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
  static const std::regex kRank("(^|[^a-z])(rank|rep|worker)[_-]?([0-9]{1,7})([^0-9]|$)");
  std::smatch m;
  if (!std::regex_search(name, m, kRank)) return std::nullopt;
  return std::stoi(m[3].str());
}

JobProfile read_job(const std::vector<std::string>& inputs, const JobReadOptions& o) {
  JobProfile job;
  job.inputs = inputs;
  TraceOptions options = o.trace;
  options.chrome_trace_path.clear();
  job.ranks = read_ranks(expand_trace_inputs(o.flag, inputs), options, o);
  assign_ranks(job.ranks, o);
  align(job, o.align);
  name_extremes(job);
  find_missing(job);
  return job;
}

}  // namespace pipebench
