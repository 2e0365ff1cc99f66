// SPDX-License-Identifier: Apache-2.0
// `pipebench topo`: discover, classify, print (text, JSON or DOT), optionally export hwloc XML.
#include "app/topo_command.h"

#include <CLI/CLI.hpp>
#include <iostream>

#include "core/distinct_files.h"
#include "core/error.h"
#include "report/topology_report.h"
#include "topology/hwloc_discovery.h"

namespace pipebench {
namespace {

// Needs no MPI: runs before (and without) a World. Returns the exit status.
int run_topo_command(const TopoOptions& o) {
  const TopologyView view = discover_topology(o.discovery);
  if (!o.export_xml.empty()) {
    if (!o.discovery.hwloc_xml.empty() || !o.discovery.nccl_xml.empty()) {
      throw UsageError("--export-xml writes this machine's topology; it cannot be combined with --xml/--nccl-xml");
    }
    export_hwloc_xml(o.export_xml);
  }
  if (o.format == "json") {
    write_topology_json(std::cout, view);
  } else if (o.format == "dot") {
    print_topology_dot(std::cout, view);
  } else {
    print_topology_text(std::cout, view);
    if (!o.export_xml.empty()) std::cout << "\nhwloc XML written to " << o.export_xml << "\n";
  }
  return static_cast<int>(ExitCode::kOk);
}

class TopoCommand final : public Subcommand {
 public:
  std::string name() const override { return "topo"; }
  std::string summary() const override {
    return "PCIe/NVLink/NUMA/NIC topology, pair matrix like nvidia-smi topo -m, warnings";
  }
  void add_options(CLI::App& sub) override {
    sub.add_option("--xml", o_.discovery.hwloc_xml, "read an hwloc XML export instead of this machine");
    sub.add_option("--nccl-xml", o_.discovery.nccl_xml, "read NCCL's topology XML (NCCL_TOPO_FILE format)");
    sub.add_flag("--under-load", o_.discovery.under_load, "sample PCIe link state while a host<->device copy runs");
    sub.add_option("--format", o_.format, "text, json or dot (the PCIe tree for graphviz)")
        ->check(CLI::IsMember({"text", "json", "dot"}))
        ->capture_default_str();
    sub.add_option("--export-xml", o_.export_xml, "write this machine's hwloc XML (with I/O devices) here");
  }
  void finish(const CLI::App& /*sub*/, const CommandExtras& /*extras*/) override {
    require_distinct_files({{"--xml", o_.discovery.hwloc_xml}, {"--nccl-xml", o_.discovery.nccl_xml}},
                           {{"--export-xml", o_.export_xml}});
  }
  int run(const World* /*world*/) override { return run_topo_command(o_); }

 private:
  TopoOptions o_;
};

}  // namespace

std::unique_ptr<Subcommand> make_topo_command() { return std::make_unique<TopoCommand>(); }

}  // namespace pipebench
