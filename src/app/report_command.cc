// SPDX-License-Identifier: Apache-2.0
#include "app/report_command.h"

#include <CLI/CLI.hpp>
#include <cmath>
#include <iostream>
#include <string>
#include <vector>

#include "app/report_inputs.h"
#include "core/distinct_files.h"
#include "core/error.h"
#include "core/file_io.h"
#include "io/baseline_io.h"
#include "io/nccl_tests_argument.h"
#include "report/fleet_baseline.h"
#include "report/report_writer.h"
#include "report/rule.h"

namespace pipebench {

namespace {

class ReportCommand final : public Subcommand {
 public:
  [[nodiscard]] std::string name() const override { return "report"; }
  [[nodiscard]] std::string summary() const override {
    return "Qualification report (HTML, Markdown, JSON) with rules, baseline and node diagnosis";
  }

  void add_options(CLI::App& sub) override {
    sub.add_option("inputs", inputs_,
                   "Results files, run folders, topology, prediction or replay JSON, nccl-tests logs (LOG:OP where a "
                   "log does not name its op)")
        ->required();
    sub.add_option("--out", out_, "Folder for report.html, report.md (+ SVG plots) and report.json")
        ->capture_default_str();
    sub.add_option("--rules", rules_file_, "Rules file (YAML or JSON) replacing the default rules");
    sub.add_option("--baseline", baseline_,
                   "Results file or run folder to compare each point against, or a fleet baseline of --make-baseline");
    sub.add_option("--make-baseline", make_baseline_,
                   "Write a fleet baseline (median and spread per op, size and hardware) of the INPUT results to "
                   "this file instead of a report");
    sub.add_option("--title", title_, "Title of the report")->capture_default_str();
    sub.add_option("--mad-k", mad_k_, "Node diagnosis: flag a host more than K MADs below its peers' median")
        ->capture_default_str();
    sub.add_flag("--strict", strict_,
                 "A rule that was not applied fails the report (exit 3), for harnesses that must not pass on what "
                 "was not checked");
  }

  void finish(const CLI::App& sub, const CommandExtras& /*extras*/) override {
    if (!std::isfinite(mad_k_) || !(mad_k_ > 0))
      throw UsageError("--mad-k " + std::to_string(mad_k_) + ": must be > 0");
    if (out_.empty()) throw UsageError("--out: empty folder name");
    if (!make_baseline_.empty()) {
      if (!baseline_.empty()) throw UsageError("--make-baseline: cannot be combined with --baseline");
      // A baseline file is all it writes: the report's own flags beside it are bad input, never ignored.
      for (const char* flag : {"--out", "--title", "--mad-k", "--rules", "--strict"}) {
        if (sub.count(flag) > 0)
          throw UsageError(std::string("--make-baseline: writes a fleet baseline, not a report; ") + flag +
                           " applies to a report only");
      }
      require_output_path("--make-baseline", make_baseline_);
    }
    rules_ = rules_file_.empty() ? default_rules() : read_rules_file(rules_file_);
  }

  [[nodiscard]] int run(const World* /*world*/) override {
    if (!make_baseline_.empty()) return write_baseline();
    require_distinct_inputs(files_of("INPUT", inputs_));
    ReportInputs in = load_report_inputs(inputs_, baseline_);
    in.title = title_;
    in.mad_k = mad_k_;
    in.not_applied_fails = strict_;
    ReportFiles files;
    const int rc = write_report(in, rules_, out_, &files, input_files());
    std::cout << "report: " << files.verdict_line << "\n  " << files.html << "\n  " << files.markdown << "\n  "
              << files.json << "\n";
    return rc;
  }

 private:
  int write_baseline() const {
    std::vector<FileArg> ins;
    for (const auto& input : inputs_) ins.push_back({"INPUT", split_log_argument("INPUT", input).path});
    require_distinct_files(ins, {{"--make-baseline", make_baseline_}});
    require_distinct_inputs(files_of("INPUT", inputs_));
    const ReportInputs in = load_report_inputs(inputs_, "");
    FleetBaseline fleet = make_fleet_baseline(in.results);
    write_output_file("--make-baseline", make_baseline_, baseline_to_json(fleet).dump(1) + "\n");
    std::cout << "baseline: " << fleet.points.size() << " points from " << in.results.size() << " results file"
              << (in.results.size() == 1 ? "" : "s") << "\n  " << make_baseline_ << "\n";
    return 0;
  }

  // The files of INPUTs (folders expanded, a log given as FILE:OP is its FILE), each named by `flag`.
  static std::vector<FileArg> files_of(const std::string& flag, const std::vector<std::string>& inputs) {
    std::vector<FileArg> files;
    for (const auto& input : inputs) {
      for (const auto& f : expand_input(flag, split_log_argument(flag, input).path)) files.push_back({flag, f});
    }
    return files;
  }

  // Every file the report reads, folders expanded (a log given as FILE:OP is its FILE): none may be one the
  // report writes into --out.
  std::vector<FileArg> input_files() const {
    std::vector<FileArg> files;
    for (const auto& input : inputs_) {
      for (const auto& f : expand_input("INPUT", split_log_argument("INPUT", input).path))
        files.push_back({"INPUT", f});
    }
    if (!baseline_.empty()) {
      for (const auto& f : expand_input("--baseline", baseline_)) files.push_back({"--baseline", f});
    }
    files.push_back({"--rules", rules_file_});
    return files;
  }

  std::vector<std::string> inputs_;
  std::string out_ = "report";
  std::string rules_file_, baseline_, make_baseline_;
  std::string title_ = "pipebench qualification report";
  double mad_k_ = 3.0;
  bool strict_ = false;
  std::vector<Rule> rules_;
};

}  // namespace

std::unique_ptr<Subcommand> make_report_command() { return std::make_unique<ReportCommand>(); }

}  // namespace pipebench
