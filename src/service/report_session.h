// SPDX-License-Identifier: Apache-2.0
// ReportSession: everything rank 0 writes for a measuring command (bench, run, pairs): the system and
// topology blocks, the results JSON and CSV written record by record, each record tagged with the link
// class of its ranks, and the PCIe link state sampled while the measurements ran.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "harness/record.h"
#include "harness/sink.h"
#include "io/results_io.h"
#include "launch/world.h"
#include "topology/discovery.h"
#include "topology/link_sampler.h"
#include "topology/placement.h"

namespace pipebench {

class ResultsJson;

class ReportSession {
 public:
  // Collective. Throws UsageError for an unwritable --json/--csv (the message on rank 0; the other
  // ranks throw it too, so that every rank stops before measuring).
  ReportSession(const World& world, const Backend& backend, const std::string& json_path, const std::string& csv_path,
                const nlohmann::json& config, std::vector<ResultRecord>* collected = nullptr);
  ~ReportSession();
  ReportSession(const ReportSession&) = delete;
  ReportSession& operator=(const ReportSession&) = delete;

  // Where records go; null on ranks other than 0.
  [[nodiscard]] RecordSink* sink() { return rank0_ ? &tagger_ : nullptr; }
  void add_sink(std::unique_ptr<RecordSink> s) { sinks_.push(std::move(s)); }
  [[nodiscard]] const SystemInfo& system() const { return header_.system; }
  // Rank 0's topology, or null (other ranks, or discovery failed: see system().topology_json).
  [[nodiscard]] const TopologyView* topology() const { return view_.get(); }
  // Where the ranks ran, with the links of this host's GPUs that hold them (the link class of a group);
  // null on host ranks (the MPI backend), on other ranks and when discovery failed.
  [[nodiscard]] const Placement* placement() const { return placement_.get(); }
  // Ends the sweep: closes the console table, stores the link state seen during the run.
  void finish();
  // Records the pass costs measured on rank 0's GPU in the results header (written at once with --json).
  void set_pass_costs(const PassCosts& costs);

 private:
  class Tagger final : public RecordSink {
   public:
    explicit Tagger(ReportSession& s) : s_(s) {}
    void add(const ResultRecord& r) override;
    void end_op() override { s_.sinks_.end_op(); }
    void finish() override { s_.sinks_.finish(); }

   private:
    ReportSession& s_;
  };

  bool rank0_;
  ResultsHeader header_;
  std::unique_ptr<TopologyView> view_;
  std::unique_ptr<Placement> placement_;
  std::unique_ptr<LinkSampler> sampler_;
  SinkList sinks_;
  ResultsJson* json_ = nullptr;  // owned by sinks_
  Tagger tagger_{*this};
};

}  // namespace pipebench
