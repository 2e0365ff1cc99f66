// SPDX-License-Identifier: Apache-2.0
// Report session of a measuring command.
#include "service/report_session.h"

#include <algorithm>
#include <map>
#include <optional>
#include <utility>

#include "core/error.h"
#include "core/utc_timestamp.h"
#include "core/version.h"
#include "io/provenance_io.h"
#include "report/csv_writer.h"
#include "report/results_json.h"
#include "report/system_info.h"
#include "report/topology_report.h"

namespace pipebench {
namespace {

class Collector final : public RecordSink {
 public:
  explicit Collector(std::vector<ResultRecord>& out) : out_(out) {}
  void add(const ResultRecord& r) override {
    if (is_measurement(r)) out_.push_back(r);
  }

 private:
  std::vector<ResultRecord>& out_;
};

// The ranks of system["devices"] (rank, host, bus_id each) placed on the GPUs of `view`, the topology of
// `host`, with their links.
Placement place_devices(const nlohmann::json& devices, const TopologyView& view, const std::string& host) {
  std::vector<DevicePlace> places;
  for (const auto& d : devices) {
    places.push_back({d.value("rank", -1), d.value("host", ""), normalize_bus_id(d.value("bus_id", ""))});
  }
  std::map<std::string, int> gpu_of_bus;
  for (const auto& g : view.topology.gpus) gpu_of_bus[g.bus_id] = g.index;
  Placement placement(places, host, gpu_of_bus);
  placement.link_gpus(links_of(view));
  return placement;
}

// The narrowest theoretical link over every pair of the ranks' GPUs; unset when a pair is unknown (a
// host rank, a rank on another host) or there is no pair.
std::optional<double> narrowest_path_gbps(const Placement& placement, const std::vector<int>& ranks) {
  std::optional<double> narrowest;
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    for (std::size_t j = i + 1; j < ranks.size(); ++j) {
      if (ranks[i] == ranks[j]) continue;
      const GpuLink* p = placement.link(ranks[i], ranks[j]);
      if (!p || !(p->path_min_gbps > 0)) return std::nullopt;
      narrowest = narrowest ? std::min(*narrowest, p->path_min_gbps) : p->path_min_gbps;
    }
  }
  return narrowest;
}

}  // namespace

void ReportSession::Tagger::add(const ResultRecord& r) {
  if (!s_.placement_) return s_.sinks_.add(r);
  ResultRecord tagged = r;
  tagged.link_class = s_.placement_->class_of(r.ranks);
  tagged.path_min_gbps = narrowest_path_gbps(*s_.placement_, r.ranks);
  s_.sinks_.add(tagged);
}

ReportSession::ReportSession(const World& world, const Backend& backend, const std::string& json_path,
                             const std::string& csv_path, const nlohmann::json& config,
                             std::vector<ResultRecord>* collected)
    : rank0_(world.rank() == 0), system_(collect_system(world, backend)) {
  std::string error;
  if (rank0_) {
    // The machine this rank runs on; a failure here must not stop the measurement.
    try {
      view_ = std::make_unique<TopologyView>(discover_topology({}));
      system_["topology"] = topology_to_json(*view_);
      if (backend.kind() == BackendKind::kNccl)
        placement_ = std::make_unique<Placement>(place_devices(system_["devices"], *view_, world.host()));
      system_["link_state"] = {{"start", link_snapshot(view_->topology)}};
      sampler_ = std::make_unique<LinkSampler>(view_->topology);
    } catch (const std::exception& e) {
      system_["topology"] = {{"error", e.what()}};
    }
    if (collected) sinks_.push(std::make_unique<Collector>(*collected));
    try {
      if (!json_path.empty()) {
        nlohmann::json header = {
            {"tool_version", kToolVersion}, {"created_utc", utc_timestamp()}, {"system", system_}, {"config", config}};
        add_provenance(header);
        auto json = std::make_unique<ResultsJson>(json_path, std::move(header));
        json_ = json.get();
        sinks_.push(std::move(json));
      }
    } catch (const Error& e) {
      error = std::string("--json: ") + e.what();
    }
    try {
      if (!csv_path.empty()) sinks_.push(std::make_unique<CsvWriter>(csv_path));
    } catch (const Error& e) {
      error = e.what();
    }
  }
  if (!world.all(error.empty())) throw UsageError(error);
}

ReportSession::~ReportSession() = default;

void ReportSession::finish() {
  if (!rank0_) return;
  tagger_.finish();
  if (sampler_) {
    nlohmann::json seen = sampler_->stop();
    system_["link_state"]["end"] = link_snapshot(view_->topology);
    if (json_) {
      json_->set_field("system", system_);
      json_->set_field("link_state_during_run", seen);
    }
  }
}

void ReportSession::set_results_field(const std::string& key, nlohmann::json value) {
  if (json_) json_->set_field(key, std::move(value));
}

}  // namespace pipebench
