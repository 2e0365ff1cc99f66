// SPDX-License-Identifier: Apache-2.0
// alltoall: block j of rank i's input lands at block i of rank j's output (MoE expert parallelism,
// Ulysses context parallelism).
#include "collectives/registry.h"
#include "collectives/split_count.h"

namespace pipebench {
namespace {

class AllToAll final : public Op {
 public:
  // nccl-tests does not validate in-place alltoall (AlltoAllInitData: reportErrors = 0): bench prints N/A
  // for it; the alltoall_perf binary name times it unchecked as nccl-tests does.
  AllToAll() { traits_.nccl_tests_unchecked_in_place = traits_.in_plans = true; }
  std::string_view name() const override { return "alltoall"; }
  OpAliases aliases() const override { return {"ncclAlltoAll", "alltoall_perf", "", "alltoall"}; }
  // count = per peer, size = one rank's whole buffer n*count (nccl-tests AlltoAllGetCollByteCount).
  Sizing sizing(std::size_t requested, std::size_t e, int n, const OpParams&) const override {
    return split_sizing(requested, e, n, true);
  }
  // (n-1)/n of the buffer leaves the rank (nccl-tests alltoall.cu AlltoAllGetBw).
  double bus_bw_factor(int n) const override { return static_cast<double>(n - 1) / n; }
  // Rank r sends pattern(r, j*count + k) to rank j; rank r's block i must hold pattern(i, r*count + k).
  // In place (nccl-tests' placement, unchecked): the input goes into the output buffer.
  DataLayout layout(const Sizing& s, int rank, int n, bool in_place, const OpParams&) const override {
    DataLayout d;
    d.fills.push_back(
        {in_place ? BufferRole::kRecv : BufferRole::kSend, 0, s.count * static_cast<std::size_t>(n), rank, 0});
    for (int src = 0; src < n && !in_place; ++src) {
      d.checks.push_back(
          {static_cast<std::size_t>(src) * s.count, s.count, false, src, static_cast<std::uint64_t>(rank) * s.count});
    }
    return d;
  }
  void issue(Backend& b, int local, const CallArgs& a) const override {
    void* recv = a.buffers.recv(local);
    b.all_to_all(local, a.in_place ? recv : a.buffers.send(local), recv, a.sizing.count, a.dtype);
  }
};

PB_REGISTER_OP(AllToAll);

}  // namespace
}  // namespace pipebench
