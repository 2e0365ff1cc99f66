// SPDX-License-Identifier: Apache-2.0
// nccl-tests output read back: the text a *_perf binary prints (every layout from the per-op tables of
// 2021 through 2.13's shared `redop root` columns to 2.19's per-iteration and timestamp columns) and its
// `-J` JSON (schema versions 1-3). Formats: shared/reference/nccl-tests.md §4 and nccl-tests'
// src/util.cu (writeDeviceReport, writeResultHeader, writeBenchmarkLine*, the json* writer).
#pragma once

#include <cstddef>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "harness/record.h"
#include "io/results_io.h"

namespace pipebench {

// One `#  Rank R Group G Pid P on HOST device D [BUS] MODEL` line (or one JSON `config.devices` entry).
struct NcclTestsDevice {
  int rank = -1, group = 0, pid = -1, device = -1;
  std::string host, bus_id, model;
};

// One test of a log: its header, devices and table. A file may hold several (logs appended to one file,
// or one per `-N` cycle of a JSON file), each its own NcclTestsLog.
struct NcclTestsLog {
  std::string format;           // "text" or "json v3"
  std::string program;          // "all_reduce_perf"; "" when the log does not name it
  std::string op;               // pipebench's name of the op (all_reduce, ..., sendrecv, hypercube); "" unknown
  std::string version;          // nccl-tests version ("" before 2.17.4, which did not print it)
  std::string nccl_version;     // "2.28.3" from nccl-library=22803, or NCCL's own "NCCL version" line
  int nthreads = 0, ngpus = 0;  // 0 when the header is missing
  int iters = 0, warmup = 0, agg_iters = 1, graph = 0;
  std::vector<NcclTestsDevice> devices;
  int nranks = 0;  // ranks of the communicator each row ran on (0 = unknown)
  std::vector<int> ranks;
  int groups = 1;              // NCCL_TESTS_SPLIT: groups that ran the op at the same time (each row is per group)
  double avg_busbw_gbps = -1;  // `# Avg bus bandwidth`; -1 when the log ends before it
  bool concluded = false;      // the footer was seen (the log is whole)
  std::vector<ResultRecord> records;
};

// What a file gave: its tests and, per kind of line or row left out, how many (e.g. "table rows cut
// short" -> 2). Rows are kept only when every field of both placements is a finite number in range (the
// whole word: "22\0" is no number), and the type and reduction are names ([a-z0-9_], as nccl-tests prints).
struct NcclTestsFile {
  std::vector<NcclTestsLog> logs;
  std::map<std::string, int> skipped;
  // Why the file as a whole cannot be imported ("" when it can): two runs interleaved in one text log
  // (a second footer, or rows after the footer: its rows cannot be told apart), a -J schema version
  // other than 1-3, a config value out of range. Callers refuse the file with it (exit status 2).
  std::string refused;
  std::size_t replaced_bytes = 0;  // bytes that were not UTF-8, read as U+FFFD (host and model names)
};

// Hints for logs that do not say everything: the op (text before 2.17.4 never names its binary) and the
// rank count (a log cut before its device lines). Empty / 0: take it from the log, else from the file
// name (e.g. all_gather_perf.log).
struct NcclTestsHints {
  std::string op;
  int nranks = 0;
  std::string file_name;
};

// pipebench's op for an nccl-tests binary or op name ("all_reduce_perf", "all_reduce_perf_mpi",
// "./build/alltoall_perf", "allreduce"): "" when it names none.
[[nodiscard]] std::string nccl_tests_op(std::string_view name);

// The ops nccl_tests_op gives, comma-separated: what --op and FILE:OP take.
[[nodiscard]] std::string nccl_tests_op_list();

// pipebench's op for the binary a log names ("# Collective test starting: all_reduce_perf", a -J file's
// args[0]): the whole name after the last '/' must be one of nccl-tests' binaries, WORD_perf or
// WORD_perf_mpi, or WORD itself (pipebench bench's own table says "all_reduce"); "" for any other name. A file name or
// --op may say less (nccl_tests_op); a log's own binary name is matched exactly, so that a garbled one is never read as
// the op whose name it contains.
[[nodiscard]] std::string nccl_tests_log_op(std::string_view program);

// Parses text output. `where` names the file in messages. Never throws for damaged input: what cannot be
// read is counted in `skipped`; throws UsageError only for a hint that is not an op.
[[nodiscard]] NcclTestsFile parse_nccl_tests_text(std::string_view text, const NcclTestsHints& hints);

// Parses `-J` JSON; a file cut short keeps every result object that was complete.
[[nodiscard]] NcclTestsFile parse_nccl_tests_json(std::string_view text, const NcclTestsHints& hints);

// Either, by content (a JSON object opening the file is `-J` output). Bytes that are not UTF-8 are read
// as U+FFFD and counted in replaced_bytes (JSON output holds UTF-8 only).
[[nodiscard]] NcclTestsFile parse_nccl_tests(std::string_view text, const NcclTestsHints& hints);

// The longest text line read (nccl-tests' are under 200 bytes; a longer line is skipped and counted, never
// held), and the largest -J JSON file (nccl-tests writes kilobytes).
inline constexpr std::size_t kMaxNcclTestsLineBytes = 64 * 1024;
inline constexpr std::size_t kMaxNcclTestsJsonBytes = std::size_t{64} << 20;

// parse_nccl_tests of a file, with memory independent of its size: a text log is read in blocks, line by
// line (a line longer than kMaxNcclTestsLineBytes is skipped and counted); a -J JSON file is read whole,
// refused beyond kMaxNcclTestsJsonBytes. Throws UsageError "FLAG PATH: ..." for a file that is not a
// readable regular file or too large.
[[nodiscard]] NcclTestsFile read_nccl_tests_file(const std::string& flag, const std::string& path,
                                                 const NcclTestsHints& hints);

// One file as read, for the results file.
struct NcclTestsImport {
  std::string path;
  NcclTestsFile file;
};

// The pipebench.results/1 document of imported files (`"source": "nccl-tests"`): every record of every
// test through io/results_io's record_to_json, the hosts, GPU models and devices in `system`, where each
// came from in `imported_from`. `created_utc` is the time of the import.
[[nodiscard]] nlohmann::json nccl_tests_results(const std::vector<NcclTestsImport>& imports,
                                                const std::string& created_utc);

// The typed results of one file's text when it is nccl-tests output (text or -J JSON) with at least one
// whole row, else nullopt: what report and predict --table read when they are given a log itself rather
// than its import, equal to what nccl_tests_results writes of it. The op and rank count come from the log
// or its file name, else `op` (the OP of FILE:OP, io/nccl_tests_argument.h; "" = none). Throws UsageError
// "FLAG PATH: skipped N table rows ..." with import's reasons when the file is nccl-tests output whose
// every row was left out (an op or a rank count it does not say), "give --op" said as FILE:OP.
[[nodiscard]] std::optional<ResultSet> nccl_tests_result_set_of(const std::string& path, std::string_view text,
                                                                const std::string& op = "",
                                                                const std::string& flag = "");

}  // namespace pipebench
