// SPDX-License-Identifier: Apache-2.0
// Every registered generator, on pipelines of several shapes: each rank runs every pass once (B and W apart
// where the generator splits the backward, each W after its B), each receive comes before the compute that
// needs it, every transfer has exactly one sender and one receiver, and every
// async call is waited for once. A new generator is checked here as soon as it registers.
#include "schedule/schedule_registry.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "core/error.h"

namespace pipebench {
namespace {

struct Recorded {
  std::vector<std::pair<Pass, std::int64_t>> passes;
  std::vector<Call> calls;
  std::vector<int> waits;
  // Where each receive of (grad, k) was posted, in steps of this rank, and where each pass ran.
  std::map<std::pair<bool, std::int64_t>, std::size_t> recv_step;
  std::map<std::pair<Pass, std::int64_t>, std::size_t> pass_step;
};

class RecordingSink final : public ProgramSink {
 public:
  explicit RecordingSink(Recorded& r) : r_(r) {}
  void compute(Pass pass, std::int64_t k) override {
    r_.pass_step[{pass, k}] = step_++;
    r_.passes.emplace_back(pass, k);
  }
  void call(const Call& c) override {
    for (int i = 0; i < c.nops; ++i) {
      if (!c.ops[i].send) r_.recv_step[{c.ops[i].grad, c.ops[i].k}] = step_;
    }
    ++step_;
    r_.calls.push_back(c);
  }
  void wait(int handle) override {
    ++step_;
    r_.waits.push_back(handle);
  }

 private:
  Recorded& r_;
  std::size_t step_ = 0;
};

// Megatron's shapes (megatron.md §3): 1F1B warm-up min(p-r-1, m); interleaved with groups of p microbatches,
// warm-up min(2(p-r-1) + (v-1)p, m v).
ScheduleShape shape_of(int p, int v, std::int64_t m, bool overlap) {
  ScheduleShape s;
  s.p = p;
  s.v = v;
  s.m = m;
  s.overlap_p2p = overlap;
  for (int r = 0; r < p; ++r) {
    s.warmup.push_back(v == 1 ? std::min<std::int64_t>(p - r - 1, m)
                              : std::min<std::int64_t>(2 * (p - r - 1) + static_cast<std::int64_t>(v - 1) * p, m * v));
  }
  if (v == 1) {
    s.table = one_chunk_table(m);
  } else {
    for (std::int64_t g = 0; g < m; g += p)
      for (int c = 0; c < v; ++c)
        for (std::int64_t mb = g; mb < std::min<std::int64_t>(g + p, m); ++mb) s.table.emplace_back(mb, c);
  }
  return s;
}

// A transfer: (grad, microbatch, the virtual stage that receives it).
using Transfer = std::tuple<bool, std::int64_t, int>;

void check(const ScheduleGenerator& g, const ScheduleShape& shape) {
  const std::string where = std::string(g.name()) + " p " + std::to_string(shape.p) + " v " + std::to_string(shape.v) +
                            " m " + std::to_string(shape.m) + (shape.overlap_p2p ? "" : " no overlap");
  std::multiset<Transfer> sent, received;
  for (int r = 0; r < shape.p; ++r) {
    Recorded rec;
    RecordingSink sink(rec);
    g.emit(shape, r, sink);
    // Every pass of every virtual microbatch once.
    std::vector<std::pair<Pass, std::int64_t>> want;
    for (std::int64_t k = 0; k < shape.steps(); ++k) {
      want.emplace_back(Pass::kForward, k);
      want.emplace_back(Pass::kBackward, k);
      if (g.splits_backward()) want.emplace_back(Pass::kWeight, k);
    }
    std::vector<std::pair<Pass, std::int64_t>> got = rec.passes;
    std::sort(got.begin(), got.end());
    std::sort(want.begin(), want.end());
    EXPECT_EQ(got, want) << where << " rank " << r;
    // A W needs its own B; B needs the forward of the same microbatch and chunk.
    for (const auto& [key, step] : rec.pass_step) {
      if (key.first == Pass::kWeight) {
        EXPECT_GT(step, rec.pass_step.at({Pass::kBackward, key.second})) << where;
      }
      if (key.first == Pass::kBackward) {
        EXPECT_GT(step, rec.pass_step.at({Pass::kForward, key.second})) << where;
      }
    }
    // An input that arrives from another stage is received before the pass that needs it.
    for (const auto& [key, step] : rec.recv_step) {
      const Pass pass = key.first ? Pass::kBackward : Pass::kForward;
      EXPECT_LT(step, rec.pass_step.at({pass, key.second})) << where << " rank " << r << " k " << key.second;
    }
    std::set<int> handles;
    for (const Call& c : rec.calls) {
      EXPECT_LE(c.nops, 4) << where;
      if (c.async) {
        EXPECT_TRUE(handles.insert(c.handle).second) << where << ": handle " << c.handle << " twice";
      }
      for (int i = 0; i < c.nops; ++i) {
        const CallOp& op = c.ops[i];
        const int stage = shape.stage(r, shape.chunk(op));
        const int to_stage = !op.send ? stage : op.grad ? stage - 1 : stage + 1;
        EXPECT_GE(to_stage, 0) << where;
        EXPECT_LT(to_stage, shape.p * shape.v) << where;
        (op.send ? sent : received).insert({op.grad, shape.microbatch(op.k), to_stage});
      }
    }
    // Every async call is waited for exactly once, after it was posted.
    std::multiset<int> waited(rec.waits.begin(), rec.waits.end());
    EXPECT_EQ(std::set<int>(rec.waits.begin(), rec.waits.end()).size(), rec.waits.size()) << where << " rank " << r;
    EXPECT_EQ(std::set<int>(waited.begin(), waited.end()), handles) << where << " rank " << r;
  }
  EXPECT_EQ(sent, received) << where;
  // Each stage but the first receives each microbatch's activation from another rank, each but the last its
  // grad, except where the neighbouring stage is on the same rank (the V placement's turn).
  std::int64_t crossings = 0;
  for (int s = 0; s + 1 < shape.p * shape.v; ++s) crossings += shape.rank_of(s) != shape.rank_of(s + 1);
  EXPECT_EQ(static_cast<std::int64_t>(sent.size()), 2 * shape.m * crossings) << where;
}

TEST(ScheduleRegistry, EveryGeneratorWritesWellFormedPrograms) {
  const ScheduleRegistry& registry = ScheduleRegistry::instance();
  int checked = 0;
  for (const auto& name : registry.names()) {
    const ScheduleGenerator& g = registry.find("test", name);
    const std::vector<int> vs = g.chunks() > 0    ? std::vector<int>{g.chunks()}
                                : g.interleaves() ? std::vector<int>{2, 3, 4}
                                                  : std::vector<int>{1};
    for (int p : {2, 3, 4, 8}) {
      for (int v : vs) {
        for (std::int64_t m : {std::int64_t{1}, std::int64_t{p}, std::int64_t{2} * p, std::int64_t{3} * p + 0}) {
          if (v > 1 && m % p != 0) continue;  // Megatron: interleaving needs m divisible by p (§3b)
          for (bool overlap : {true, false}) {
            ScheduleShape shape = shape_of(p, v, m, overlap);
            shape.placement = g.placement();
            check(g, shape);
            ++checked;
          }
        }
      }
    }
  }
  EXPECT_GE(checked, 3 * 4 * 2);
}

// One rank's steps as text: every pass, call (its name, async, handle and ops) and wait, in order.
class TextSink final : public ProgramSink {
 public:
  void compute(Pass pass, std::int64_t k) override {
    text += "c" + std::to_string(static_cast<int>(pass)) + ":" + std::to_string(k) + " ";
  }
  void call(const Call& c) override {
    text += std::string(c.name) + (c.async ? "/a" : "") + "#" + std::to_string(c.handle) + "[";
    for (int i = 0; i < c.nops; ++i) {
      const CallOp& o = c.ops[i];
      text += std::string(o.send ? "s" : "r") + (o.to_next() ? "n" : "p") + (o.grad ? "g" : "f") + std::to_string(o.k) +
              ",";
    }
    text += "] ";
  }
  void wait(int handle) override { text += "w" + std::to_string(handle) + " "; }
  std::string text;
};

// emit_all, which a generator may do in one pass over every rank (the zero-bubble timeline), writes each
// rank exactly what emit writes for that rank alone, in rank order, each rank whole before the next.
TEST(ScheduleRegistry, EmitAllWritesEveryRankAsEmitDoesInRankOrder) {
  const ScheduleRegistry& registry = ScheduleRegistry::instance();
  int compared = 0;
  for (const auto& name : registry.names()) {
    const ScheduleGenerator& g = registry.find("test", name);
    const int v = g.chunks() > 0 ? g.chunks() : g.interleaves() ? 2 : 1;
    for (int p : {2, 4}) {
      ScheduleShape shape = shape_of(p, v, std::int64_t{2} * p, true);
      shape.placement = g.placement();
      std::vector<TextSink> all(static_cast<std::size_t>(p));
      std::vector<int> asked;
      g.emit_all(shape, [&](int r) -> ProgramSink& {
        asked.push_back(r);
        return all[static_cast<std::size_t>(r)];
      });
      std::vector<int> in_order(static_cast<std::size_t>(p));
      for (int r = 0; r < p; ++r) in_order[static_cast<std::size_t>(r)] = r;
      EXPECT_EQ(asked, in_order) << name << " p " << p;
      for (int r = 0; r < p; ++r) {
        TextSink alone;
        g.emit(shape, r, alone);
        EXPECT_FALSE(alone.text.empty()) << name;
        EXPECT_EQ(all[static_cast<std::size_t>(r)].text, alone.text) << name << " p " << p << " rank " << r;
        ++compared;
      }
    }
  }
  EXPECT_GE(compared, 7 * 6);
}

TEST(ScheduleRegistry, TheSchedulesAreRegisteredAndGpipeAndZeroBubbleAreReferences) {
  const ScheduleRegistry& registry = ScheduleRegistry::instance();
  EXPECT_EQ(registry.names(), (std::vector<std::string>{"1f1b", "gpipe", "interleaved", "interleaved-zb", "zb-2p",
                                                        "zb-h1", "zb-h2", "zbv"}));
  EXPECT_TRUE(registry.find("x", "gpipe").reference());
  for (const char* zb : {"zb-2p", "zb-h1", "zb-h2", "interleaved-zb", "zbv"}) {
    EXPECT_TRUE(registry.find("x", zb).reference()) << zb;
    EXPECT_TRUE(registry.find("x", zb).splits_backward()) << zb;
    EXPECT_EQ(registry.find("x", zb).interleaves(), std::string(zb) == "interleaved-zb" || std::string(zb) == "zbv")
        << zb;
    EXPECT_EQ(registry.find("x", zb).placement(), std::string(zb) == "zbv" ? StagePlacement::kV : StagePlacement::kLoop)
        << zb;
  }
  for (const char* plain : {"1f1b", "gpipe", "interleaved"}) EXPECT_FALSE(registry.find("x", plain).splits_backward());
  EXPECT_FALSE(registry.find("x", "1f1b").reference());
  EXPECT_TRUE(registry.find("x", "interleaved").interleaves());
  EXPECT_FALSE(registry.find("x", "1f1b").interleaves());
  EXPECT_EQ(registry.find_or_null("zb-v"), nullptr);
  EXPECT_THROW((void)schedule_generator({"zb-v", 1}), UsageError);
}

// --schedule's help (predict, replay, bench --plan) is the registry's: every name in its order with its summary, and
// "[:vN]" exactly where the user picks v.
TEST(ScheduleRegistry, TheScheduleFlagHelpListsEveryRegisteredScheduleWithItsSummary) {
  const ScheduleRegistry& registry = ScheduleRegistry::instance();
  const std::string help = schedule_flag_help();
  std::size_t last = 0;
  for (const std::string& name : registry.names()) {
    const std::string summary = registry.find("x", name).summary();
    EXPECT_FALSE(summary.empty()) << name;
    const std::size_t at = help.find(" (" + summary + ")");
    ASSERT_NE(at, std::string::npos) << name << ": " << help;
    EXPECT_GT(at, last) << name << ": " << help;
    last = at;
  }
  for (const char* entry : {"all, or one: 1f1b (", ", gpipe (", ", interleaved[:vN] (", ", interleaved-zb[:vN] (",
                            ", zb-h1 (", ", zb-h2 (", ", zbv ("})
    EXPECT_NE(help.find(entry), std::string::npos) << entry << ": " << help;
}

// The first rank's 1F1B for p 2, m 2 is warm-up forward 0, steady forward 1 / backward 0, cool-down backward 1,
// with Megatron's call names (schedules.py forward_backward_pipelining_without_interleaving); the calls that
// carry nothing on the first stage (recv_forward, send_backward) are not issued.
TEST(ScheduleRegistry, OneFOneBOfTheFirstRankIsMegatronsCallSequence) {
  Recorded rec;
  RecordingSink sink(rec);
  ScheduleRegistry::instance().find("x", "1f1b").emit(shape_of(2, 1, 2, true), 0, sink);
  std::vector<std::string> names;
  for (const Call& c : rec.calls) names.emplace_back(c.name);
  EXPECT_EQ(names, (std::vector<std::string>{"send_forward", "send_forward_recv_backward", "recv_backward"}));
  EXPECT_EQ(rec.passes, (std::vector<std::pair<Pass, std::int64_t>>{
                            {Pass::kForward, 0}, {Pass::kForward, 1}, {Pass::kBackward, 0}, {Pass::kBackward, 1}}));
}

// A rank's passes as text: "F0 B0 W0 ...".
std::string passes_of(const char* name, int p, std::int64_t m, int r) {
  Recorded rec;
  RecordingSink sink(rec);
  ScheduleRegistry::instance().find("x", name).emit(shape_of(p, 1, m, true), r, sink);
  std::string out;
  for (const auto& [pass, k] : rec.passes) {
    out += (out.empty() ? "" : " ") +
           std::string(pass == Pass::kForward    ? "F"
                       : pass == Pass::kBackward ? "B"
                                                 : "W") +
           std::to_string(k);
  }
  return out;
}

// ZB-H1, p 4, m 6 (Qi et al. 2024 §2.1, Figure 3 top, with 0-based microbatches). Rank r runs 1F1B's
// warm-up, p-1-r forwards, then F and B alternate as in 1F1B; W passes start late by the same count the
// warm-up is short, r, so every rank holds p = 4 microbatches in flight at the peak. By hand:
//   rank 0: warm-up F0 F1 F2; then F3 B0 W0, F4 B1 W1, F5 B2 W2; cool-down B3 W3, B4 W4, B5 W5.
//   rank 1: warm-up F0 F1; F2 B0 (W held), F3 B1 W0, F4 B2 W1, F5 B3 W2; B4 W3, B5 W4; then W5.
//   rank 3: no warm-up; F0 B0, F1 B1, F2 B2 (three W held), F3 B3 W0, F4 B4 W1, F5 B5 W2; then W3 W4 W5,
//   the W passes that fill the tail where 1F1B's last stage idles.
TEST(ScheduleRegistry, ZbH1StepOrderIsThePapersFigure) {
  EXPECT_EQ(passes_of("zb-h1", 4, 6, 0), "F0 F1 F2 F3 B0 W0 F4 B1 W1 F5 B2 W2 B3 W3 B4 W4 B5 W5");
  EXPECT_EQ(passes_of("zb-h1", 4, 6, 1), "F0 F1 F2 B0 F3 B1 W0 F4 B2 W1 F5 B3 W2 B4 W3 B5 W4 W5");
  EXPECT_EQ(passes_of("zb-h1", 4, 6, 3), "F0 B0 F1 B1 F2 B2 F3 B3 W0 F4 B4 W1 F5 B5 W2 W3 W4 W5");
  // p 2, m 3: rank 0 as 1F1B with W after each B; rank 1 holds one W back.
  EXPECT_EQ(passes_of("zb-h1", 2, 3, 0), "F0 F1 B0 W0 F2 B1 W1 B2 W2");
  EXPECT_EQ(passes_of("zb-h1", 2, 3, 1), "F0 B0 F1 B1 W0 F2 B2 W1 W2");
}

}  // namespace
}  // namespace pipebench
