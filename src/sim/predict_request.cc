// SPDX-License-Identifier: Apache-2.0
#include "sim/predict_request.h"

#include <memory>

#include "core/error.h"
#include "core/printf_string.h"
#include "core/units.h"

namespace pipebench {
namespace {

// The costs of one source, what they are in words, and the paths its placed ranks' transfers take.
struct BuiltCosts {
  std::unique_ptr<CostModel> owned;
  const CostModel* model = nullptr;
  std::string text;
  PathModel paths;
};

// An nccl-tests import's collective table stands for the machine.
BuiltCosts nccl_tests_costs(const MeasuredTable& t) {
  auto costs = std::make_unique<NcclTestsCost>(t.records, t.source);
  BuiltCosts out;
  out.text = "derived from nccl-tests " + costs->reference_op() + " on " + std::to_string(costs->reference_nranks()) +
             " ranks (" + t.source + "): P2P " +
             (costs->has_sendrecv() ? "from its sendrecv table" : "= its smallest-size time + bytes / busbw") +
             ", collectives on k ranks by their bus factor for k";
  // Above 64 KiB a collective's time is bandwidth, not latency (nccl-tests' small-size rows are the latency
  // regime); a table that starts there (nccl-tests' default -b is 32M) makes that time every message's floor.
  constexpr double kLatencyRegimeBytes = 64 * 1024;
  if (costs->latency_size_bytes() > kLatencyRegimeBytes) {
    out.text += printf_string(
        "; note: its smallest %s size is %s, so its %.1f us there is taken as every smaller message's latency "
        "(run nccl-tests from -b 8 for a latency)",
        costs->reference_op().c_str(), format_size(static_cast<std::uint64_t>(costs->latency_size_bytes())).c_str(),
        costs->latency_us());
  }
  out.model = costs.get();
  out.owned = std::move(costs);
  return out;
}

BuiltCosts build(const MeasuredTable& t) {
  if (t.from_nccl_tests) return nccl_tests_costs(t);
  auto measured = std::make_unique<MeasuredCost>(t.records, t.placement, t.source);
  if (t.class_fallback) measured->allow_class_fallback();
  BuiltCosts out;
  out.text = "measured: " + t.source + (t.class_fallback ? " (class fallback allowed)" : "");
  out.paths = path_model(t.placement);
  out.model = measured.get();
  out.owned = std::move(measured);
  return out;
}

BuiltCosts build(const AssumedLinks& a) {
  auto assumed = std::make_unique<AssumedCost>(a.gbps, a.latency_us);
  BuiltCosts out;
  out.text = printf_string("assumed: every link %.3g GB/s per direction, %.3g us latency", a.gbps, a.latency_us);
  for (const ClassLink& l : a.class_links) {
    assumed->set_class_link(l.cls, l.gbps, l.us);
    out.text += printf_string("; %s %.3g GB/s, %.3g us", l.cls.label().c_str(), l.gbps, l.us);
  }
  if (!a.class_links.empty()) assumed->set_classes(a.placement);
  if (!a.description.empty()) out.text = a.description;
  out.model = assumed.get();
  out.owned = std::move(assumed);
  return out;
}

BuiltCosts build(const ZeroComm&) {
  BuiltCosts out;
  out.owned = std::make_unique<ZeroCost>();
  out.model = out.owned.get();
  out.text = "zero: communication is free (a compute-only bound)";
  return out;
}

BuiltCosts build(const GivenCosts& g) {
  BuiltCosts out;
  out.model = g.model;
  out.text = g.description;
  return out;
}

}  // namespace

PredictOutcome predict(const Plan& plan, const PredictRequest& r) {
  const BuiltCosts costs = std::visit([](const auto& source) { return build(source); }, r.costs);
  if (!costs.model) throw Error("predict: no cost model given");
  PredictOutcome out;
  out.prediction = predict(plan, *costs.model, r.compute, r.links == LinkModel::kSharedPath, r.keep_trace, r.schedule,
                           &costs.paths, r.schedule_files, r.trace_sink, r.compare_cold);
  out.cost_text = costs.text;
  if (!costs.paths.empty()) out.link_count = costs.paths.link_count;
  return out;
}

}  // namespace pipebench
