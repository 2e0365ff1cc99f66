// SPDX-License-Identifier: Apache-2.0
// nccl-tests-style console rows (widths from nccl-tests src/common.cu and util.cu).
#include "report/console_table.h"

#include <cstdio>

#include "core/units.h"

namespace pipebench {

std::string format_fixed_width(double value, int width) {
  int power = 0;
  for (double v = 1; value >= v && power < 40; v *= 10) ++power;
  char buf[64];
  if (power < width - 2) {
    std::snprintf(buf, sizeof buf, "%*.2f", width, value);
  } else if (power < width - 1) {
    std::snprintf(buf, sizeof buf, "%*.1f", width, value);
  } else if (power < width + 1) {
    std::snprintf(buf, sizeof buf, "%*.0f", width, value);
  } else {
    std::snprintf(buf, sizeof buf, "%*.1e", width, value);
  }
  return buf;
}

namespace {

std::string placement(const ResultRecord* r) {
  char buf[128];
  if (!r) {
    std::snprintf(buf, sizeof buf, "  %7s  %6s  %6s  %6s", "N/A", "N/A", "N/A", "N/A");
  } else if (!r->error.empty()) {
    std::snprintf(buf, sizeof buf, "  %7s  %6s  %6s  %6s", "error", "-", "-", "-");
  } else {
    char wrong[32];
    if (r->wrong < 0) {
      std::snprintf(wrong, sizeof wrong, "N/A");
    } else {
      std::snprintf(wrong, sizeof wrong, "%lld", static_cast<long long>(r->wrong));
    }
    std::snprintf(buf, sizeof buf, "  %7s  %6s  %6s  %6s", format_fixed_width(r->time_us, 7).c_str(),
                  format_fixed_width(r->algbw_gbps, 6).c_str(), format_fixed_width(r->busbw_gbps, 6).c_str(), wrong);
  }
  return buf;
}

}  // namespace

void ConsoleTable::header(const std::string& op) {
  op_ = op;
  wrong_ = 0;
  peak_busbw_gbps_ = 0;
  errors_ = 0;
  out_ << "#\n# Collective test starting: " << op << "\n#\n"
       << "#                                                              out-of-place                       in-place\n"
       << "#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   "
          "busbw  #wrong\n"
       << "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)             (us)  (GB/s)  "
          "(GB/s)\n";
}

void ConsoleTable::row(const ResultRecord& a, const ResultRecord* b) {
  char lead[128];
  std::snprintf(lead, sizeof lead, "%12llu  %12llu  %8s  %6s  %6d", static_cast<unsigned long long>(a.size_bytes),
                static_cast<unsigned long long>(a.count), a.dtype.c_str(), a.redop.c_str(), a.root);
  out_ << lead << placement(&a) << placement(b);
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
    if (r->wrong > 0) wrong_ += r->wrong;
    if (r->busbw_gbps > peak_busbw_gbps_) {
      peak_busbw_gbps_ = r->busbw_gbps;
      peak_size_ = r->size_bytes;
      peak_in_place_ = r->in_place;
    }
  }
}

void ConsoleTable::add(const ResultRecord& r) {
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
  out_ << "# Wrong values        : " << wrong_ << (wrong_ ? " FAILED" : " OK") << "\n";
  if (peak_busbw_gbps_ > 0) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "# Peak bus bandwidth  : %.2f GB/s at %s (%s)\n", peak_busbw_gbps_,
                  format_size(peak_size_).c_str(), peak_in_place_ ? "in-place" : "out-of-place");
    out_ << buf;
  }
  if (errors_) out_ << "# Failed points       : " << errors_ << "\n";
  out_ << "# Collective test concluded: " << op_ << "\n";
  out_.flush();
  op_.clear();
}

}  // namespace pipebench
