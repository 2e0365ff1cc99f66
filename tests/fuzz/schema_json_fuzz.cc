// SPDX-License-Identifier: Apache-2.0
// Fuzz target: the schema readers of src/io (pipebench.plan/1, .results/1, .prediction/1,
// .topology/1, .trace/1 with its job view) on any JSON document. Bad input must be a UsageError naming the field, never
// a crash.
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "core/error.h"
#include "io/plan_io.h"
#include "io/prediction_io.h"
#include "io/results_io.h"
#include "io/topology_io.h"
#include "io/trace_io.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const nlohmann::json j = nlohmann::json::parse(data, data + size, nullptr, false);
  if (j.is_discarded()) return 0;  // not JSON: the JSON parser's job, fuzzed with every other target
  const auto quietly = [](auto&& read) {
    try {
      read();
    } catch (const pipebench::UsageError&) {
    }
  };
  quietly([&] { (void)pipebench::plan_from_json(j, "fuzz"); });
  quietly([&] { (void)pipebench::results_from_json(j, "fuzz"); });
  quietly([&] { (void)pipebench::prediction_from_json(j, "fuzz"); });
  quietly([&] { (void)pipebench::topology_from_json(j, "fuzz"); });
  quietly([&] { (void)pipebench::trace_from_json(j, "fuzz"); });
  return 0;
}
