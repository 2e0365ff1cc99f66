// SPDX-License-Identifier: Apache-2.0
// gather: rank r's block of `count` elements lands at offset r*count on the root.
#include "collectives/registry.h"
#include "collectives/root_check.h"
#include "collectives/split_count.h"

namespace pipebench {
namespace {

class Gather final : public Op {
 public:
  std::string_view name() const override { return "gather"; }
  OpAliases aliases() const override { return {"ncclGather", "gather_perf", "", "gather"}; }
  bool reduces() const override { return false; }
  bool supports_in_place() const override { return true; }
  bool has_root() const override { return true; }
  // count = per rank, size = the root's whole output (nccl-tests GatherGetCollByteCount). Every rank
  // has the whole receive buffer: in place, its input sits there at its own block.
  Sizing sizing(std::size_t requested, std::size_t e, int n, const OpParams&) const override {
    const std::size_t base = split_count(requested, e, n);
    const std::size_t total = base * static_cast<std::size_t>(n) * e;
    return {base, total, base * e, total};
  }
  // (n-1)/n of the gathered bytes reach the root from elsewhere (nccl-tests gather.cu GatherGetBw).
  double bus_bw_factor(int n) const override { return static_cast<double>(n - 1) / n; }
  DataLayout layout(const Sizing& s, int rank, int n, bool in_place, const OpParams& p) const override {
    DataLayout d;
    if (in_place) {
      d.fills.push_back({BufferRole::kRecv, static_cast<std::size_t>(rank) * s.count, s.count, rank, 0});
    } else {
      d.fills.push_back({BufferRole::kSend, 0, s.count, rank, 0});
    }
    if (rank != p.root) return d;  // the receive buffer is not used elsewhere
    for (int src = 0; src < n; ++src) {
      d.checks.push_back({static_cast<std::size_t>(src) * s.count, s.count, false, src, 0});
    }
    return d;
  }
  // In place: the input is the rank's own block of the receive buffer (ncclGather, nccl.h).
  void issue(Backend& b, int local, const CallArgs& a) const override {
    auto* recv = static_cast<char*>(a.buffers.recv(local));
    const std::size_t block = a.sizing.count * dtype_size(a.dtype);
    const void* send = a.in_place ? recv + static_cast<std::size_t>(b.rank_of(local)) * block : a.buffers.send(local);
    b.gather(local, send, recv, a.sizing.count, a.dtype, a.params.root);
  }
  void validate(int n, const OpParams& p) const override { validate_root(name(), n, p); }
};

PB_REGISTER_OP(Gather);

}  // namespace
}  // namespace pipebench
