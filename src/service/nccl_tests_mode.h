// SPDX-License-Identifier: Apache-2.0
// pipebench started as an nccl-tests binary (build/bin/all_reduce_perf and the other links `make` makes):
// it is `pipebench bench --op OP` with nccl-tests' defaults and nccl-tests' own text, so that harnesses that
// run nccl-tests by name (DCGM's nccl_tests plugin through DCGM_NCCL_TESTS_BIN_PATH) run pipebench
// unchanged. Also -J's head, which both modes write (the text is report/bench_preamble.h's).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "backend/backend.h"
#include "core/error.h"
#include "io/results_io.h"
#include "launch/world.h"
#include "service/bench_config.h"

namespace pipebench {

// The nccl-tests binaries that have a link, by name ("all_reduce_perf"): the ops' nccl-tests aliases,
// sorted by op name.
[[nodiscard]] std::vector<std::string> nccl_tests_binaries();

// The op an nccl-tests binary name stands for ("/opt/bin/all_reduce_perf" -> "all_reduce"); "" when the
// program's base name is not one of nccl_tests_binaries().
[[nodiscard]] std::string nccl_tests_binary_op(std::string_view argv0);

// The words the command table parses for such a binary: bench, its op and name, then the user's words, where
// nccl-tests' `--op` (its long name of -o, the reduction: `all_reduce_perf --op prod`) is bench's --redop.
[[nodiscard]] std::vector<std::string> nccl_tests_words(std::string_view argv0, const std::vector<std::string>& args);

// bench's --help as the binary's: its name in the usage line, no --op (the name is the op), -o's long name
// --op, and nccl-tests' defaults of -w, --reps and -a.
[[nodiscard]] std::string nccl_tests_help(std::string_view argv0, const std::string& bench_help);

// nccl-tests' defaults where bench's differ: one warm-up, one timed batch, the mean over ranks (-a 1).
inline constexpr int kNcclTestsWarmup = 1;
inline constexpr int kNcclTestsReps = 1;
inline constexpr int kNcclTestsAverage = 1;

// The user's words of nccl_tests_words' result, behind the program name (what nccl-tests' -J "args" holds).
[[nodiscard]] std::vector<std::string> nccl_tests_user_args(const std::vector<std::string>& words);

// nccl-tests' defaults where bench's differ (one warm-up, one timed batch, the mean over ranks), for the
// flags not given. `given(flag)` says whether a flag was typed.
// Applied after the flags were read (-I has already turned -n into samples). Throws UsageError for a -K
// that leaves no sample of the one batch.
template <class Given>
void apply_nccl_tests_defaults(BenchConfig& c, Given given) {
  if (!given("-w")) c.measure.warmup = kNcclTestsWarmup;
  if (!given("--reps") && !c.per_iter_timing) c.measure.reps = kNcclTestsReps;
  if (!given("-a")) c.measure.rank_stat = static_cast<RankStat>(kNcclTestsAverage);
  if (c.measure.per_iter_skip >= c.measure.reps) {
    throw UsageError("-K " + std::to_string(c.measure.per_iter_skip) + ": must leave at least one of the " +
                     std::to_string(c.measure.reps) +
                     " samples (nccl-tests times one batch; -I 1 times each iteration)");
  }
}

// nccl-tests' -g: the GPUs of one of its threads (bench drives -t x -g GPUs from one thread).
[[nodiscard]] int nccl_tests_ngpus(const BenchConfig& c, const Backend& backend);

// -J's head: version 3, start_time, args, env (the allow-listed launch environment), nccl_version, config.
[[nodiscard]] nlohmann::ordered_json nccl_tests_json_head(const BenchConfig& c, const Backend& backend,
                                                          const SystemInfo& system, const World& world);

}  // namespace pipebench
