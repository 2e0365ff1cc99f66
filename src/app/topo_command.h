// SPDX-License-Identifier: Apache-2.0
// `pipebench topo`.
#pragma once

#include <memory>
#include <string>

#include "core/command.h"
#include "topology/discovery.h"

namespace pipebench {

// `pipebench topo`.
struct TopoOptions {
  DiscoveryOptions discovery;
  std::string format = "text";  // text, json, dot
  std::string export_xml;       // write this machine's hwloc XML here
};

[[nodiscard]] std::unique_ptr<Subcommand> make_topo_command();

}  // namespace pipebench
