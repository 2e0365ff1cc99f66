// SPDX-License-Identifier: Apache-2.0
// pipebench.baseline/1 reader and writer.
#include "io/baseline_io.h"

#include <set>
#include <tuple>

#include "io/json_fields.h"

namespace pipebench {

nlohmann::json baseline_to_json(const FleetBaseline& b) {
  nlohmann::json points = nlohmann::json::array();
  for (const auto& p : b.points) {
    points.push_back({{"op", p.op},
                      {"dtype", p.dtype},
                      {"redop", p.redop},
                      {"in_place", p.in_place},
                      {"size_bytes", p.size_bytes},
                      {"nranks", p.nranks},
                      {"link_class", p.link_class},
                      {"gpu_model", p.gpu_model},
                      {"nccl", p.nccl},
                      {"driver", p.driver},
                      {"busbw_gbps",
                       {{"median", p.median_gbps},
                        {"spread", p.spread_gbps},
                        {"min", p.min_gbps},
                        {"max", p.max_gbps},
                        {"samples", p.samples}}}});
  }
  return {{"schema", kBaselineSchema}, {"points", points}};
}

namespace {

FleetPoint point_from_json(const JsonFields& f, const nlohmann::json& j, const std::string& path) {
  FleetPoint p;
  p.op = f.get_string(j, path, "op");
  p.dtype = f.get_string(j, path, "dtype");
  p.redop = f.get_string(j, path, "redop");
  p.in_place = f.get_bool(j, path, "in_place");
  const std::int64_t size = f.get_i64(j, path, "size_bytes");
  if (size < 0) f.fail(JsonFields::join(path, "size_bytes"), "is negative");
  p.size_bytes = static_cast<std::uint64_t>(size);
  p.nranks = f.get_int(j, path, "nranks");
  if (p.nranks < 1) f.fail(JsonFields::join(path, "nranks"), "must be >= 1");
  p.link_class = f.get_string(j, path, "link_class");
  p.gpu_model = f.get_string(j, path, "gpu_model");
  p.nccl = f.get_string(j, path, "nccl");
  p.driver = f.get_string(j, path, "driver");
  const std::string bw = JsonFields::join(path, "busbw_gbps");
  const nlohmann::json& b = f.object(j, path, "busbw_gbps");
  constexpr double kMaxGbps = 1e6;  // far above any link
  p.median_gbps = f.get_double_in(b, bw, "median", 0, kMaxGbps);
  p.spread_gbps = f.get_double_in(b, bw, "spread", 0, kMaxGbps);
  p.min_gbps = f.get_double_in(b, bw, "min", 0, kMaxGbps);
  p.max_gbps = f.get_double_in(b, bw, "max", 0, kMaxGbps);
  if (p.min_gbps > p.median_gbps || p.median_gbps > p.max_gbps) f.fail(bw, "needs min <= median <= max");
  p.samples = f.get_int(b, bw, "samples");
  if (p.samples < 1) f.fail(JsonFields::join(bw, "samples"), "must be >= 1");
  return p;
}

}  // namespace

FleetBaseline baseline_from_json(const nlohmann::json& doc, const std::string& where) {
  JsonFields f(where);
  f.require_schema(doc, kBaselineSchema, "pipebench baseline");
  const nlohmann::json& points = f.array(doc, "", "points");
  FleetBaseline out;
  std::set<std::tuple<std::string, std::string, std::string, bool, std::uint64_t, int, std::string, std::string,
                      std::string, std::string>>
      keys;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const std::string path = JsonFields::item("points", i);
    FleetPoint p = point_from_json(f, points[i], path);
    if (!keys.emplace(p.op, p.dtype, p.redop, p.in_place, p.size_bytes, p.nranks, p.link_class, p.gpu_model, p.nccl,
                      p.driver)
             .second) {
      f.fail(path, "repeats the key of an earlier point");
    }
    out.points.push_back(std::move(p));
  }
  return out;
}

}  // namespace pipebench
