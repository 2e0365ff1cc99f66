// SPDX-License-Identifier: Apache-2.0
// Fuzz target: NCCL topology XML (--nccl-xml), with the topology checks that follow it.
#include <cstddef>
#include <cstdint>

#include "core/error.h"
#include "fuzz/fuzz_input.h"
#include "topology/nccl_xml.h"
#include "topology/topology_checks.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = pipebench::fuzz::input_file("nccl_xml", data, size);
  try {
    pipebench::Topology t = pipebench::parse_nccl_xml("--nccl-xml", path);
    (void)pipebench::check_topology(t);
  } catch (const pipebench::UsageError&) {
  }
  return 0;
}
