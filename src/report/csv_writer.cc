// SPDX-License-Identifier: Apache-2.0
// CSV writer (RFC 4180 quoting for the free-text error column).
#include "report/csv_writer.h"

#include <sstream>

#include "core/error.h"

namespace pipebench {
namespace {

std::string quote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

}  // namespace

std::string csv_header() {
  return "op,backend,nranks,dtype,redop,root,size_bytes,count,in_place,time_us,algbw_gbps,busbw_gbps,wrong,"
         "samples,min_us,median_us,mean_us,p95_us,max_us,stddev_us,ops_per_batch,graph,class,error";
}

std::string csv_line(const ResultRecord& r) {
  std::ostringstream o;
  o.precision(6);
  o << r.op << ',' << r.backend << ',' << r.nranks << ',' << r.dtype << ',' << r.redop << ',' << r.root << ','
    << r.size_bytes << ',' << r.count << ',' << (r.in_place ? 1 : 0) << ',' << r.time_us << ',' << r.algbw_gbps << ','
    << r.busbw_gbps << ',';
  if (r.wrong >= 0) o << r.wrong;
  o << ',' << r.stats.samples << ',' << r.stats.min_us << ',' << r.stats.median_us << ',' << r.stats.mean_us << ','
    << r.stats.p95_us << ',' << r.stats.max_us << ',' << r.stats.stddev_us << ',' << r.ops_per_batch << ','
    << (r.graph ? 1 : 0) << ',' << r.link_class << ',' << (r.error.empty() ? "" : quote(r.error));
  return o.str();
}

CsvWriter::CsvWriter(const std::string& path) : out_("--csv", path) { out_.append(csv_header() + "\n"); }

void CsvWriter::add(const ResultRecord& r) {
  if (is_measurement(r)) out_.append(csv_line(r) + "\n");  // --split: each group's own record
}

void CsvWriter::finish() { out_.close(); }

}  // namespace pipebench
