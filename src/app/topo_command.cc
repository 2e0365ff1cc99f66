// SPDX-License-Identifier: Apache-2.0
// `pipebench topo`: discover, classify, print (text, JSON or DOT), optionally export hwloc XML.
#include "app/topo_command.h"

#include <iostream>

#include "core/error.h"
#include "report/topology_report.h"
#include "topology/hwloc_discovery.h"

namespace pipebench {

int run_topo_command(const TopoOptions& o) {
  const TopologyView view = discover_topology(o.discovery);
  if (!o.export_xml.empty()) {
    if (!o.discovery.hwloc_xml.empty() || !o.discovery.nccl_xml.empty()) {
      throw UsageError("--export-xml writes this machine's topology; it cannot be combined with --xml/--nccl-xml");
    }
    export_hwloc_xml(o.export_xml);
  }
  if (o.format == "json") {
    std::cout << topology_to_json(view).dump(2) << "\n";
  } else if (o.format == "dot") {
    print_topology_dot(std::cout, view);
  } else {
    print_topology_text(std::cout, view);
    if (!o.export_xml.empty()) std::cout << "\nhwloc XML written to " << o.export_xml << "\n";
  }
  return static_cast<int>(ExitCode::kOk);
}

}  // namespace pipebench
