// SPDX-License-Identifier: Apache-2.0
// Report session of a measuring command.
#include "service/report_session.h"

#include <unistd.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <utility>

#include "core/command_line.h"
#include "core/error.h"
#include "core/utc_timestamp.h"
#include "core/version.h"
#include "io/topology_io.h"
#include "report/csv_writer.h"
#include "report/results_json.h"
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

// Every rank's device, gathered from every process (collective); the topology and the links are the
// caller's to add.
SystemInfo collect_system(const World& world, const Backend& backend) {
  // Each process sends its devices as the results file writes them.
  nlohmann::json mine = nlohmann::json::array();
  for (const auto& d : backend.devices()) {
    mine.push_back(SystemDevice{{d.rank, world.host(), d.bus_id}, static_cast<long>(getpid()), d.device, d.model});
  }
  SystemInfo s;
  std::set<std::string> hosts, models;
  for (const auto& text : world.all_gather(mine.dump())) {
    for (const auto& j : nlohmann::json::parse(text)) {
      s.devices.push_back(device_from_json(j, "a process's devices"));
      hosts.insert(s.devices.back().host);
      models.insert(s.devices.back().model);
    }
  }
  for (const auto& h : world.all_gather(world.host())) hosts.insert(h);
  s.hosts.assign(hosts.begin(), hosts.end());
  s.gpu_models.assign(models.begin(), models.end());
  s.processes = world.size();
  s.versions = backend.versions();
  s.environment = world.launch_environment();
  return s;
}

// The ranks of `devices` placed on the GPUs of `view`, the topology of `host`, with their links.
Placement place_devices(const std::vector<SystemDevice>& devices, const TopologyView& view, const std::string& host) {
  std::vector<DevicePlace> places(devices.begin(), devices.end());
  for (auto& d : places) d.bus_id = normalize_bus_id(d.bus_id);
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
  const std::optional<LinkClass> cls = s_.placement_->class_of(r.ranks);
  tagged.link_class = cls ? cls->label() : "";  // the record's edge: a class name, "" for unknown
  tagged.path_min_gbps = narrowest_path_gbps(*s_.placement_, r.ranks);
  s_.sinks_.add(tagged);
}

ReportSession::ReportSession(const World& world, const Backend& backend, const std::string& json_path,
                             const std::string& csv_path, const nlohmann::json& config,
                             std::vector<ResultRecord>* collected)
    : rank0_(world.rank() == 0) {
  SystemInfo& system = header_.system = collect_system(world, backend);
  std::string error;
  if (rank0_) {
    // The machine this rank runs on; a failure here must not stop the measurement.
    try {
      view_ = std::make_unique<TopologyView>(discover_topology({}));
      system.topology_json = topology_to_json(*view_);
      system.topology = topology_file(*view_);  // typed as the file's reader has it, never read back
      if (backend.kind() == BackendKind::kNccl)
        placement_ = std::make_unique<Placement>(place_devices(system.devices, *view_, world.host()));
      system.link_start = link_snapshot(view_->topology);
      system.has_link_start = true;
      sampler_ = std::make_unique<LinkSampler>(view_->topology);
    } catch (const std::exception& e) {
      system.topology_json = {{"error", e.what()}};
    }
    if (collected) sinks_.push(std::make_unique<Collector>(*collected));
    try {
      if (!json_path.empty()) {
        header_.tool_version = kToolVersion;
        header_.created_utc = utc_timestamp();
        header_.command_line = this_command_line();
        header_.config = config;
        auto json = std::make_unique<ResultsJson>(json_path, header_);
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
    header_.link_during_run = sampler_->stop();
    header_.system.link_end = link_snapshot(view_->topology);
    header_.system.has_link_end = true;
    if (json_) json_->set_header(header_);
  }
}

void ReportSession::set_pass_costs(const PassCosts& costs) {
  header_.pass_costs = costs;
  if (json_) json_->set_header(header_);
}

}  // namespace pipebench
