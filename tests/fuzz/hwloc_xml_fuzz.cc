// SPDX-License-Identifier: Apache-2.0
// Fuzz target: hwloc XML exports (--xml), with the topology checks that follow them.
#include <cstddef>
#include <cstdint>

#include "core/error.h"
#include "fuzz/fuzz_input.h"
#include "topology/hwloc_discovery.h"
#include "topology/topology_checks.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = pipebench::fuzz::input_file("hwloc_xml", data, size);
  try {
    pipebench::Topology t = pipebench::discover_with_hwloc("--xml", path);
    (void)pipebench::check_topology(t);
  } catch (const pipebench::UsageError&) {
  }
  return 0;
}
