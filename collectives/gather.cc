// SPDX-License-Identifier: Apache-2.0
// gather: rank r's block of `count` elements lands at offset r*count on the root.
#include "collectives/registry.h"
#include "collectives/root_check.h"
#include "collectives/split_count.h"

namespace pipebench {
namespace {

class Gather final : public Op {
 public:
  Gather() { traits_.supports_in_place = traits_.has_root = true; }
  std::string_view name() const override { return "gather"; }
  OpAliases aliases() const override { return {"ncclGather", "gather_perf", "", "gather"}; }
  // count = per rank, size = the root's whole output (nccl-tests GatherGetCollByteCount). Every rank
  // has the whole receive buffer: in place, its input sits there at its own block.
  Sizing sizing(std::size_t requested, std::size_t e, int n, const OpParams&) const override {
    return split_sizing(requested, e, n, false);
  }
  // (n-1)/n of the gathered bytes reach the root from elsewhere (nccl-tests gather.cu GatherGetBw).
  double bus_bw_factor(int n) const override { return static_cast<double>(n - 1) / n; }
  // The root's receive buffer alone is checked: it is not used elsewhere.
  DataLayout layout(const Sizing& s, int rank, int n, bool in_place, const OpParams& p) const override {
    return gathered_layout(s, rank, n, in_place, rank == p.root);
  }
  // In place: the input is the rank's own block of the receive buffer (ncclGather, nccl.h).
  void issue(Backend& b, int local, const CallArgs& a) const override {
    const void* send = a.in_place ? own_block(b, local, a) : a.buffers.send(local);
    b.gather(local, send, a.buffers.recv(local), a.sizing.count, a.dtype, a.params.root);
  }
  void validate(int n, const OpParams& p) const override { validate_root(name(), n, p); }
};

PB_REGISTER_OP(Gather);

}  // namespace
}  // namespace pipebench
