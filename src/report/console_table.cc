// SPDX-License-Identifier: Apache-2.0
// nccl-tests-style console rows (widths from nccl-tests src/common.cu and util.cu).
#include "report/console_table.h"

#include <algorithm>

#include "collectives/registry.h"
#include "core/printf_string.h"
#include "core/units.h"
#include "topology/link_band.h"

namespace pipebench {

std::string format_fixed_width(double value, int width) {
  int power = 0;
  for (double v = 1; value >= v && power < 40; v *= 10) ++power;
  if (power < width - 2) return printf_string("%*.2f", width, value);
  if (power < width - 1) return printf_string("%*.1f", width, value);
  if (power < width + 1) return printf_string("%*.0f", width, value);
  return printf_string("%*.1e", width, value);
}

namespace {

std::string placement(const ResultRecord* r) {
  if (!r) return printf_string("  %7s  %6s  %6s  %6s", "N/A", "N/A", "N/A", "N/A");
  if (!r->error.empty()) return printf_string("  %7s  %6s  %6s  %6s", "error", "-", "-", "-");
  // nccl-tests util.cu writeBenchmarkLineBody: "  %6g" wrong values, or "    N/A" where it did not check.
  const std::string wrong = r->wrong < 0 ? "    N/A" : printf_string("  %6g", static_cast<double>(r->wrong));
  return printf_string("  %7s  %6s  %6s%s", format_fixed_width(r->time_us, 7).c_str(),
                       format_fixed_width(r->algbw_gbps, 6).c_str(), format_fixed_width(r->busbw_gbps, 6).c_str(),
                       wrong.c_str());
}

}  // namespace

void ConsoleTable::header(const std::string& op) {
  op_ = op;
  totals_.reset();
  peak_busbw_gbps_ = 0;
  peak_link_class_.clear();
  peak_link_gbps_.reset();
  below_band_ = 0;
  worst_below_.reset();
  errors_ = 0;
  // nccl-tests names its test once, above the devices; pipebench's table names each op.
  if (style_.program.empty()) out_ << "#\n# Collective test starting: " << op << "\n";
  out_ << "#\n" << nccl_tests_column_header(style_.cputime, style_.timestamps);
}

void ConsoleTable::row(const ResultRecord& a, const ResultRecord* b) {
  out_ << printf_string("%12llu  %12llu  %8s  %6s  %6d", static_cast<unsigned long long>(a.size_bytes),
                        static_cast<unsigned long long>(a.count), a.dtype.c_str(), a.redop.c_str(), a.root)
       << placement(&a) << placement(b);
  // bench -S: the row's timestamp last, as nccl-tests -S appends it.
  const std::string& stamp = b && !b->timestamp.empty() ? b->timestamp : a.timestamp;
  if (!stamp.empty()) out_ << "  " << stamp;
  out_ << "\n";
  out_.flush();
  for (const ResultRecord* r : {&a, b}) {
    if (!r) continue;
    if (!r->error.empty()) {
      ++errors_;
      out_ << "#   error (" << (r->in_place ? "in-place" : "out-of-place") << "): " << r->error << "\n";
      continue;
    }
    // A record that carries wrong values but no per-process count still fails the footer.
    totals_.add(r->busbw_gbps, std::max(r->out_of_bounds, r->wrong > 0 ? 1 : 0));
    track(*r);
  }
}

void ConsoleTable::track(const ResultRecord& r) {
  if (r.busbw_gbps > peak_busbw_gbps_) {
    peak_busbw_gbps_ = r.busbw_gbps;
    peak_size_ = r.size_bytes;
    peak_in_place_ = r.in_place;
    peak_link_class_ = r.link_class;
    peak_link_gbps_ = r.path_min_gbps;
  }
  const auto band = check_band(r.link_class, OpRegistry::instance().traits(r.op).nvswitch_reduces, r.path_min_gbps,
                               r.busbw_gbps, r.size_bytes);
  if (band && band->below) {
    ++below_band_;
    if (!worst_below_ || r.busbw_gbps < worst_below_->busbw_gbps) worst_below_ = r;
  }
}

// "Is this number normal?": the peak against the theoretical link of the ranks' path, and the band that
// published measurements of the link class reach (topology/link_band.h).
void ConsoleTable::link_lines() {
  const auto peak = check_band(peak_link_class_, OpRegistry::instance().traits(op_).nvswitch_reduces, peak_link_gbps_,
                               peak_busbw_gbps_, peak_size_);
  if (!peak) return;
  out_ << printf_string("# Link                 : %s %.2f GB/s per direction; the peak is %.1f %% of it\n",
                        peak_link_class_.empty() ? "?" : peak_link_class_.c_str(), *peak_link_gbps_, peak->pct_of_link);
  if (!peak->band_text.empty()) out_ << "# Link band            : " << peak->band_text << "\n";
  if (below_band_ > 0) {
    const ResultRecord& w = *worst_below_;
    const auto band = check_band(w.link_class, OpRegistry::instance().traits(w.op).nvswitch_reduces, w.path_min_gbps,
                                 w.busbw_gbps, w.size_bytes);
    out_ << printf_string(
        "# Below the link band  : %d point%s at >= 1 GiB; lowest %.2f GB/s at %s (%s), %.1f %% of %s\n", below_band_,
        below_band_ == 1 ? "" : "s", w.busbw_gbps, format_size(w.size_bytes).c_str(),
        w.in_place ? "in-place" : "out-of-place", band->pct_of_link, w.link_class.c_str());
  }
}

void ConsoleTable::add(const ResultRecord& r) {
  if (!is_table_row(r)) return;  // --split: each group's own record goes to the files only
  if (r.op != op_) {
    if (!op_.empty()) end_op();
    header(r.op);
  }
  if (!r.in_place) {
    if (pending_) row(*pending_, nullptr);
    pending_ = r;
    // Ops without an in-place form never send the second half; their rows print at once.
    if (!r.op_has_in_place) {
      row(*pending_, nullptr);
      pending_.reset();
    }
    return;
  }
  if (pending_ && pending_->size_bytes == r.size_bytes && pending_->dtype == r.dtype && pending_->redop == r.redop) {
    row(*pending_, &r);
    pending_.reset();
  } else {
    if (pending_) row(*pending_, nullptr);
    pending_.reset();
    ResultRecord missing = r;  // an in-place record without its out-of-place half (filtered out)
    missing.error = "not run";
    row(missing, &r);
  }
}

void ConsoleTable::end_op() {
  if (op_.empty()) return;
  if (pending_) row(*pending_, nullptr);
  pending_.reset();
  out_ << nccl_tests_out_of_bounds_line(totals_.out_of_bounds())
       << nccl_tests_avg_busbw_line(totals_.avg_busbw_gbps(), style_.min_busbw_gbps);
  if (peak_busbw_gbps_ > 0 && style_.program.empty()) {
    out_ << printf_string("# Peak bus bandwidth   : %.2f GB/s at %s (%s)\n", peak_busbw_gbps_,
                          format_size(peak_size_).c_str(), peak_in_place_ ? "in-place" : "out-of-place");
    link_lines();
  }
  if (errors_) out_ << "# Failed points        : " << errors_ << "\n";
  out_ << "#\n# Collective test concluded: " << (style_.program.empty() ? op_ : style_.program) << "\n";
  // nccl-tests closes its output with "#" (finalizeFooter) and an empty line (writeErrors, no NCCL error).
  if (!style_.program.empty()) out_ << "#\n\n";
  out_.flush();
  op_.clear();
}

}  // namespace pipebench
