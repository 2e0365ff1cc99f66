// SPDX-License-Identifier: Apache-2.0
// scatter: block r of the root's input lands on rank r.
#include "collectives/registry.h"
#include "collectives/root_check.h"
#include "collectives/split_count.h"

namespace pipebench {
namespace {

class Scatter final : public Op {
 public:
  Scatter() { traits_.supports_in_place = traits_.has_root = true; }
  std::string_view name() const override { return "scatter"; }
  OpAliases aliases() const override { return {"ncclScatter", "scatter_perf", "", "scatter"}; }
  // count = per rank, size = the root's whole input (nccl-tests ScatterGetCollByteCount). The receive
  // buffer holds the whole input too: in place, the input lives there and rank r's block is at r*count.
  Sizing sizing(std::size_t requested, std::size_t e, int n, const OpParams&) const override {
    return split_sizing(requested, e, n, true);
  }
  // (n-1)/n of the root's input leaves it (nccl-tests scatter.cu ScatterGetBw).
  double bus_bw_factor(int n) const override { return static_cast<double>(n - 1) / n; }
  DataLayout layout(const Sizing& s, int rank, int n, bool in_place, const OpParams& p) const override {
    DataLayout d;
    const std::size_t mine = static_cast<std::size_t>(rank) * s.count;
    if (rank == p.root) {
      d.fills.push_back(
          {in_place ? BufferRole::kRecv : BufferRole::kSend, 0, s.count * static_cast<std::size_t>(n), rank, 0});
    }
    d.checks.push_back({in_place ? mine : 0, s.count, false, p.root, mine});
    return d;
  }
  // In place: the output is the rank's own block of the receive buffer (ncclScatter, nccl.h).
  void issue(Backend& b, int local, const CallArgs& a) const override {
    void* recv = a.buffers.recv(local);
    const void* send = a.in_place ? recv : a.buffers.send(local);
    b.scatter(local, send, a.in_place ? own_block(b, local, a) : recv, a.sizing.count, a.dtype, a.params.root);
  }
  void validate(int n, const OpParams& p) const override { validate_root(name(), n, p); }
};

PB_REGISTER_OP(Scatter);

}  // namespace
}  // namespace pipebench
