// SPDX-License-Identifier: Apache-2.0
// nccl-tests -J JSON, version 3.
#include "report/nccl_tests_json_writer.h"

#include <algorithm>
#include <ctime>
#include <utility>

#include "core/printf_string.h"

namespace pipebench {
namespace {

using json = nlohmann::ordered_json;

// One placement: {time, alg_bw, bus_bw, nwrong} (nwrong null when unchecked); null for a failed point.
json placement(const ResultRecord& r) {
  if (!r.error.empty()) return nullptr;
  return {{"time", r.time_us},
          {"alg_bw", r.algbw_gbps},
          {"bus_bw", r.busbw_gbps},
          {"nwrong", r.wrong < 0 ? json(nullptr) : json(static_cast<double>(r.wrong))}};
}

json row_of(const ResultRecord& r) {
  return {{"size", r.size_bytes},
          {"count", r.count},
          {"type", r.dtype},
          {"redop", r.redop},
          {"root", printf_string("%6i", r.root)},
          {"out_of_place", nullptr},
          {"in_place", nullptr},
          {"actual_iterations", r.ops_per_batch},
          {"experiment_name", r.op + "_perf"}};  // the op, as nccl-tests' binary name (no field names it)
}

}  // namespace

std::string nccl_tests_time_now() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  localtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", &tm);
  return buf;
}

NcclTestsJsonWriter::NcclTestsJsonWriter(std::string path, json head, std::optional<double> min_busbw_gbps)
    : head_(std::move(head)),
      min_busbw_gbps_(min_busbw_gbps),
      file_("-J", std::move(path), "results", 1, [this] { return shell(); }) {}

void NcclTestsJsonWriter::close_row() {
  if (!row_) return;
  file_.append(row_->dump(-1, ' ', false, json::error_handler_t::replace));
  row_.reset();
}

void NcclTestsJsonWriter::add(const ResultRecord& r) {
  if (!is_table_row(r)) return;  // nccl-tests' rows only (under --split the row over every group)
  if (r.error.empty()) totals_.add(r.busbw_gbps, std::max(r.out_of_bounds, r.wrong > 0 ? 1 : 0));
  if (!r.error.empty() && errors_.size() < kErrorsKept) {
    errors_.push_back(r.error);
  } else if (!r.error.empty()) {
    ++errors_left_out_;
  }
  const bool same_row = row_ && (*row_)["size"] == r.size_bytes && (*row_)["type"] == r.dtype &&
                        (*row_)["redop"] == r.redop && (*row_)["in_place"].is_null();
  if (!r.in_place || !same_row) close_row();
  if (!row_) row_ = row_of(r);
  (*row_)[r.in_place ? "in_place" : "out_of_place"] = placement(r);
  if (r.in_place || !r.op_has_in_place) close_row();
}

void NcclTestsJsonWriter::finish() {
  close_row();
  finished_ = true;
  end_time_ = nccl_tests_time_now();
  file_.rewrite(true);
}

std::string NcclTestsJsonWriter::shell() const {
  json doc = head_;
  doc["results"] = json::array();
  if (finished_) add_footer(doc);
  return doc.dump(1, ' ', false, json::error_handler_t::replace) + "\n";
}

void NcclTestsJsonWriter::add_footer(json& doc) const {
  const double avg = totals_.avg_busbw_gbps();
  doc["out_of_bounds"] = {{"count", totals_.out_of_bounds()}, {"okay", totals_.out_of_bounds() ? "false" : "true"}};
  doc["average_bus_bandwidth"] = {
      {"bandwidth", avg},
      {"okay", !min_busbw_gbps_ ? "unchecked" : (below_min_busbw(avg, min_busbw_gbps_) ? "false" : "true")}};
  doc["errors"] = errors_;
  if (errors_left_out_ > 0) doc["errors"].push_back(std::to_string(errors_left_out_) + " more errors not listed");
  doc["end_time"] = end_time_;
}

}  // namespace pipebench
