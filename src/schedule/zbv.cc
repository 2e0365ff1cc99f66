// SPDX-License-Identifier: Apache-2.0
// ZB-V (Qi et al., "Zero Bubble Pipeline Parallelism", ICLR 2024, §6; PyTorch's ScheduleZBVZeroBubble): two
// model chunks per rank placed in a V (StagePlacement::kV): rank r holds stage r on chunk 0 and stage 2p-1-r on
// chunk 1, so the forward runs down the ranks on chunk 0 and back up on chunk 1, the hand-off between the
// chunks stays on rank p-1, and rank 0 holds the first and the last stage. Rank r's order, B and W split:
//   warm-up: 2(p-r)-1 forwards of chunk 0, then r times F of chunk 1 and F of chunk 0, then p-r times F B W
//   of chunk 1;
//   steady: F B W of chunk 0, then F B W of chunk 1, until every forward has run;
//   cool-down: r times B of chunk 0 and B of chunk 1, p-r times B W of chunk 0, then the W passes left,
//   chunk 1's first.
// A pass is left out once its chunk has run all m of its kind (fewer than 2p-1 microbatches). With
// F = B = W = t per microbatch and rank (t/2 a chunk pass) and free communication every rank computes from
// its first pass to its last without a gap, 3mt, holding p microbatches (1F1B's peak on rank 0, §6); one
// iteration takes 3mt + (p-1)t/2, the last rank's first pass waiting for p-1 chunk forwards.
//
// The calls are PyTorch's: each input received and each output sent alone, asynchronously, posted in the
// order of a shared timeline (timeline_steps.h).
#include <vector>

#include "schedule/schedule_registry.h"
#include "schedule/timeline_steps.h"

namespace pipebench {
namespace {

struct Step {
  Pass pass;
  int chunk;  // 0 or 1
  std::int64_t mb;
};

// Rank r's passes in order (the comment above).
std::vector<Step> zbv_order(int p, std::int64_t m, int r) {
  std::vector<Step> out;
  std::int64_t f[2] = {0, 0}, b[2] = {0, 0}, w[2] = {0, 0};
  const auto fwd = [&](int c) {
    if (f[c] < m) out.push_back({Pass::kForward, c, f[c]++});
  };
  const auto bwd = [&](int c) {
    if (b[c] < m) out.push_back({Pass::kBackward, c, b[c]++});
  };
  const auto wgt = [&](int c) {
    if (w[c] < b[c]) out.push_back({Pass::kWeight, c, w[c]++});
  };
  const auto fbw = [&](int c) {
    fwd(c);
    bwd(c);
    wgt(c);
  };
  for (int i = 0; i < 2 * (p - r) - 1; ++i) fwd(0);
  for (int i = 0; i < r; ++i) {
    fwd(1);
    fwd(0);
  }
  for (int i = 0; i < p - r; ++i) fbw(1);
  while (f[1] < f[0] || f[0] < m) {
    fbw(0);
    fbw(1);
  }
  for (int i = 0; i < r; ++i) {
    bwd(0);
    bwd(1);
  }
  for (int i = 0; i < p - r; ++i) {
    bwd(0);
    wgt(0);
  }
  while (w[1] < b[1]) wgt(1);
  while (w[0] < b[0]) wgt(0);
  return out;
}

// Rank r's order as virtual microbatches of the shape's table (backward k runs on chunk v-1-c of forward
// k's entry).
std::vector<PassStep> zbv_steps(const ScheduleShape& s, int r) {
  const std::vector<std::int64_t> k_of = s.forward_step_of();
  std::vector<PassStep> out;
  for (const Step& st : zbv_order(s.p, s.m, r)) {
    const int table_chunk = st.pass == Pass::kForward ? st.chunk : 1 - st.chunk;
    out.push_back({st.pass, k_of[static_cast<std::size_t>(st.mb * 2 + table_chunk)]});
  }
  return out;
}

class Zbv final : public TimelineGenerator {
 public:
  const char* name() const override { return "zbv"; }
  const char* summary() const override { return "zero bubble, two chunks in a V"; }
  bool interleaves() const override { return true; }
  int chunks() const override { return 2; }
  StagePlacement placement() const override { return StagePlacement::kV; }
  bool reference() const override { return true; }
  bool splits_backward() const override { return true; }
  // The Zero Bubble paper's implementation runs its schedules with optimizer post-validation (Qi et al. §4).
  StepRule step_rule() const override { return StepRule::kPostValidation; }

 private:
  std::vector<PassStep> order(const ScheduleShape& shape, int q) const override { return zbv_steps(shape, q); }
};

}  // namespace

PB_REGISTER_SCHEDULE(Zbv);

}  // namespace pipebench
