// SPDX-License-Identifier: Apache-2.0
// sendrecv: a ring shift; rank r sends to r+1 and receives from r-1 in one group (nccl-tests sendrecv).
#include "collectives/registry.h"

namespace pipebench {
namespace {

class SendRecv final : public Op {
 public:
  // In-place send/recv is "not actually a valid usage" (nccl-tests #253): bench prints N/A for it; the
  // sendrecv_perf binary name times it unchecked as nccl-tests does.
  SendRecv() { traits_.nccl_tests_unchecked_in_place = traits_.nccl_tests_names_redop = traits_.in_plans = true; }
  std::string_view name() const override { return "sendrecv"; }
  // Issued as ncclSend + ncclRecv, which profiles show as send and recv: only nccl-tests names it.
  OpAliases aliases() const override { return {"", "sendrecv_perf", "", ""}; }
  Sizing sizing(std::size_t requested, std::size_t e, int, const OpParams&) const override {
    const std::size_t c = requested / e;
    return {c, c * e, c * e, c * e};
  }
  // 1: each rank's link carries the message once (nccl-tests sendrecv.cu SendRecvGetBw).
  double bus_bw_factor(int) const override { return 1.0; }
  // In place (nccl-tests' placement, unchecked): the input goes into the output buffer, which is sent from.
  DataLayout layout(const Sizing& s, int rank, int n, bool in_place, const OpParams&) const override {
    DataLayout d;
    d.fills.push_back({in_place ? BufferRole::kRecv : BufferRole::kSend, 0, s.count, rank, 0});
    if (!in_place) d.checks.push_back({0, s.count, false, (rank - 1 + n) % n, 0});
    return d;
  }
  void issue(Backend& b, int local, const CallArgs& a) const override {
    const int n = b.nranks();
    const int r = b.rank_of(local);
    const void* send = a.in_place ? a.buffers.recv(local) : a.buffers.send(local);
    b.send(local, send, a.sizing.count, a.dtype, (r + 1) % n);
    b.recv(local, a.buffers.recv(local), a.sizing.count, a.dtype, (r - 1 + n) % n);
  }
};

PB_REGISTER_OP(SendRecv);

}  // namespace
}  // namespace pipebench
