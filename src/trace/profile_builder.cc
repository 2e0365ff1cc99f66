// SPDX-License-Identifier: Apache-2.0
// Profile accumulation.
#include "trace/profile_builder.h"

#include <algorithm>
#include <limits>

namespace pipebench {

void ProfileBuilder::timeline(int device, std::int64_t start_ns, std::int64_t end_ns, bool comm) {
  Device& d = devices_[device];
  d.first_ns = d.any ? std::min(d.first_ns, start_ns) : start_ns;
  d.last_ns = d.any ? std::max(d.last_ns, end_ns) : end_ns;
  d.any = true;
  d.busy.add(start_ns, end_ns);
  if (comm) {
    d.comm.add(start_ns, end_ns);
  } else {
    d.compute.add(start_ns, end_ns);
  }
  ++d.kernels;
}

void ProfileBuilder::memory(int device, std::int64_t bytes, bool memset) {
  Device& d = devices_[device];
  // Byte counts come from the profile: saturate rather than overflow on a damaged one.
  const std::int64_t b = std::max<std::int64_t>(bytes, 0);
  std::int64_t& total = memset ? d.memset_bytes : d.memcpy_bytes;
  total = b > std::numeric_limits<std::int64_t>::max() - total ? std::numeric_limits<std::int64_t>::max() : total + b;
  ++(memset ? d.memset_count : d.memcpy_count);
}

void ProfileBuilder::active(int device, std::int64_t start_ns, std::int64_t end_ns) {
  Device& d = devices_[device];
  d.active_first_ns = d.any_active ? std::min(d.active_first_ns, start_ns) : start_ns;
  d.active_last_ns = d.any_active ? std::max(d.active_last_ns, end_ns) : end_ns;
  d.any_active = true;
  d.active.add(start_ns, end_ns);
}

void ProfileBuilder::comm_mark(int device, const std::string& key, std::int64_t start_ns, std::int64_t end_ns) {
  auto& marks = devices_[device].marks;
  auto it = marks.find(key);
  if (it == marks.end()) {
    if (marks.size() >= kMaxCommMarkKinds) return;
    it = marks.emplace(key, std::vector<std::pair<std::int64_t, std::int64_t>>()).first;
  }
  if (it->second.size() < kMaxCommMarks) it->second.emplace_back(start_ns, end_ns);
}

void ProfileBuilder::row(int device, std::int64_t stream, const std::string& name, std::int64_t duration_ns, bool comm,
                         bool nvtx_range) {
  auto [it, fresh] = devices_[device].rows.try_emplace({stream, name});
  KernelRow& r = it->second;
  if (fresh) {
    r.name = name;
    r.stream = stream;
    r.comm = comm;
    r.nvtx_range = nvtx_range;
  }
  r.comm = r.comm && comm;  // a range counts as communication only when all its kernels are NCCL's
  ++r.count;
  r.total_ns += duration_ns;
  r.min_ns = std::min(r.min_ns, duration_ns);
  r.max_ns = std::max(r.max_ns, duration_ns);
}

void ProfileBuilder::collective(int device, const CollectiveRow& c) {
  auto [it, fresh] =
      devices_[device].collectives.try_emplace({c.op, c.elements, c.dtype, c.group_size, c.source, c.nccl_bytes}, c);
  if (fresh) it->second.count = 0;
  it->second.count += c.count > 0 ? c.count : 1;
}

void ProfileBuilder::device_name(int device, const std::string& name) { devices_[device].name = name; }

std::vector<DeviceProfile> ProfileBuilder::finish() const {
  std::vector<DeviceProfile> out;
  for (const auto& [id, d] : devices_) {
    // A device with memcpy/memset but no kernel, row or collective is not one of the profile's devices
    // (the one-profile report lists devices with kernels, as it always has).
    if (!d.any && d.rows.empty() && d.collectives.empty()) continue;
    DeviceProfile p;
    p.device = id;
    p.name = d.name;
    p.first_ns = d.first_ns;
    p.last_ns = d.last_ns;
    p.busy_ns = d.any ? d.busy.total() : 0;
    p.comm_ns = d.any ? d.comm.total() : 0;
    p.kernels = d.kernels;
    p.compute_ns = d.any ? d.compute.total() : 0;
    p.memcpy_count = d.memcpy_count;
    p.memset_count = d.memset_count;
    p.memcpy_bytes = d.memcpy_bytes;
    p.memset_bytes = d.memset_bytes;
    p.active_ns = d.any_active ? d.active.total() : p.busy_ns;
    p.active_first_ns = d.any_active ? d.active_first_ns : d.first_ns;
    p.active_last_ns = d.any_active ? d.active_last_ns : d.last_ns;
    p.comm_marks = d.marks;
    for (const auto& [key, r] : d.rows) p.rows.push_back(r);
    std::stable_sort(p.rows.begin(), p.rows.end(), [](const KernelRow& a, const KernelRow& b) {
      if (a.total_ns != b.total_ns) return a.total_ns > b.total_ns;
      return std::tie(a.name, a.stream) < std::tie(b.name, b.stream);
    });
    for (const auto& [key, c] : d.collectives) p.collectives.push_back(c);
    out.push_back(std::move(p));
  }
  return out;
}

}  // namespace pipebench
