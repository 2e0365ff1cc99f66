// SPDX-License-Identifier: Apache-2.0
// The simulator against closed forms (Narayanan et al., SC21, §2.2) and Megatron's message counts.
#include "sim/simulator.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>

#include "schedule/shape_fixture.h"
#include "sim/schedules.h"
#include "sim/spec_fixture.h"

namespace pipebench {
namespace {

ScheduleSpec spec(const std::string& kind, int p, int v, std::int64_t m, SimTime tf, SimTime tb, bool overlap = true) {
  ScheduleSpec s;
  s.id = {kind, v};
  s.shape = testing::megatron_like_shape(p, v, m);  // N = p
  s.shape.overlap_p2p = overlap;
  s.p2p_bytes = 1 << 20;
  s.fwd.assign(static_cast<std::size_t>(p), std::vector<SimTime>(static_cast<std::size_t>(v), tf / v));
  s.bwd.assign(static_cast<std::size_t>(p), std::vector<SimTime>(static_cast<std::size_t>(v), tb / v));
  testing::split_backward_in_halves(s);
  return s;
}

SimCosts zero() {
  SimCosts c;
  c.p2p = [](int, int, std::int64_t) { return SimTime{0}; };
  return c;
}

SimCosts fixed(SimTime t, SimTime wrap_t = -1, int p = 0) {
  SimCosts c;
  c.p2p = [=](int src, int dst, std::int64_t) {
    const bool wrap = (src == p - 1 && dst == 0) || (src == 0 && dst == p - 1);
    return wrap && wrap_t >= 0 ? wrap_t : t;
  };
  return c;
}

SimTime run(const ScheduleSpec& s, const SimCosts& c) { return simulate(generate_schedule(s), {}, c).iteration; }

TEST(Simulator, OneFOneBMatchesTheClosedFormWithFreeCommunication) {
  for (int p : {1, 2, 4, 8}) {
    for (std::int64_t m : {1, 4, 16, 33}) {
      const SimTime tf = 1000, tb = 2000;
      EXPECT_EQ(run(spec("1f1b", p, 1, m, tf, tb), zero()), (m + p - 1) * (tf + tb)) << p << " " << m;
    }
  }
}

TEST(Simulator, GpipeMatchesTheClosedFormToo) {
  EXPECT_EQ(run(spec("gpipe", 4, 1, 8, 1000, 2000), zero()), (8 + 4 - 1) * 3000);
}

TEST(Simulator, InterleavedMatchesTheClosedFormWithFreeCommunication) {
  for (int p : {2, 4, 8}) {
    for (int v : {2, 4}) {
      for (std::int64_t m :
           {static_cast<std::int64_t>(p), 2 * static_cast<std::int64_t>(p), 4 * static_cast<std::int64_t>(p)}) {
        const SimTime tf = 4000 * v, tb = 8000 * v;  // per stage and microbatch, over all chunks
        // (m + (p-1)/v)(t_f + t_b), with m a multiple of p.
        const SimTime want = m * (tf + tb) + (p - 1) * (tf + tb) / v;
        for (bool overlap : {true, false}) {
          EXPECT_EQ(run(spec("interleaved", p, v, m, tf, tb, overlap), zero()), want)
              << "p " << p << " v " << v << " m " << m << " overlap " << overlap;
        }
      }
    }
  }
}

TEST(Simulator, MessageCountsMatchMegatron) {
  // 1F1B: 2 m (p-1) messages; interleaved: 2 m (p v - 1) (megatron.md §2).
  const int p = 4, v = 4;
  const std::int64_t m = 16;
  auto count = [](const SimResult& r) {
    int n = 0;
    for (const auto& x : r.ranks) n += x.p2p_messages_out;
    return n;
  };
  EXPECT_EQ(count(simulate(generate_schedule(spec("1f1b", p, 1, m, 10, 20)), {}, zero())), 2 * m * (p - 1));
  const auto r = simulate(generate_schedule(spec("interleaved", p, v, m, 40, 80)), {}, zero());
  EXPECT_EQ(count(r), 2 * m * (p * v - 1));
  EXPECT_EQ(r.ranks[0].p2p_messages_out, 64 + 48);  // 64 act -> 1, 48 grads -> 3 (wrap), as in §9
  EXPECT_EQ(r.ranks[1].p2p_messages_out, 128);
}

TEST(Simulator, BlockingP2PCostsMoreThanOverlappedWhenTransfersTakeTime) {
  const auto base = spec("interleaved", 4, 2, 8, 20000, 40000, true);
  auto blocking = base;
  blocking.shape.overlap_p2p = false;
  const SimCosts c = fixed(3000);
  EXPECT_LT(run(base, c), run(blocking, c));
  EXPECT_GT(run(base, c), run(base, zero()));
}

TEST(Simulator, ASlowWrapAroundPairMakesInterleavingLoseAFastOneWin) {
  const int p = 4;
  const auto plain = spec("1f1b", p, 1, 8, 20000, 40000);
  const auto inter = spec("interleaved", p, 2, 8, 20000, 40000);
  const SimCosts fast = fixed(500, 500, p), slow_wrap = fixed(500, 60000, p);
  EXPECT_LT(run(inter, fast), run(plain, fast));
  EXPECT_GT(run(inter, slow_wrap), run(plain, slow_wrap));
}

// SimResult::iteration_chain_bytes is the iteration's derivative in a link's ns per byte: with every
// transfer taking bytes x x ns, a small change of x moves the iteration by the chain's bytes times it
// (exactly, while the same chain stays the longest), whichever schedule, link sharing or blocking.
TEST(Simulator, TheChainBytesAreTheIterationsSlopeInTheLinksTimePerByte) {
  const auto per_byte = [](double x, bool shared) {
    SimCosts c;
    c.p2p = [x](int, int, std::int64_t bytes) { return static_cast<SimTime>(static_cast<double>(bytes) * x); };
    if (shared) c.link = [](int, int) { return 0; };
    return c;
  };
  int rising = 0;
  for (const auto& s : {spec("1f1b", 4, 1, 8, 20000, 40000), spec("interleaved", 4, 2, 8, 20000, 40000),
                        spec("interleaved", 4, 2, 8, 20000, 40000, false), spec("gpipe", 4, 1, 8, 20000, 40000)}) {
    for (const bool shared : {false, true}) {
      for (const double x : {0.001, 0.01, 0.1}) {  // 1 MiB: 1 to 100 us a transfer
        // x chosen so bytes x x is whole: a step of 2^-20 ns per byte adds exactly 1 ns to each transfer.
        const double step = 1.0 / (1 << 20), at = std::round(x * (1 << 20)) / (1 << 20);
        const SimResult a = simulate(generate_schedule(s), {}, per_byte(at, shared));
        const SimResult b = simulate(generate_schedule(s), {}, per_byte(at + step, shared));
        EXPECT_GT(a.iteration_chain_bytes, 0) << s.id.key() << " x " << at;
        if (a.iteration_chain_bytes == b.iteration_chain_bytes) {
          EXPECT_EQ(b.iteration - a.iteration, a.iteration_chain_bytes >> 20) << s.id.key() << " x " << at;
          ++rising;
        }
        EXPECT_EQ(a.iteration_chain_bytes % (1 << 20), 0) << "whole transfers";
      }
    }
  }
  EXPECT_GE(rising, 20);  // nearly every case keeps its chain over the step
}

TEST(Simulator, SharedLinkSerialisesConcurrentTransfers) {
  const auto s = spec("interleaved", 4, 2, 8, 20000, 40000);
  SimCosts own = fixed(5000), shared = fixed(5000);
  shared.link = [](int, int) { return 0; };
  EXPECT_GT(run(s, shared), run(s, own));
}

TEST(Simulator, NcclKernelsSlowOverlappedComputeWhenAsked) {
  const auto s = spec("interleaved", 4, 2, 8, 20000, 40000, true);
  SimCosts plain = fixed(3000), slowed = fixed(3000);
  slowed.compute_slowdown_while_comm = 0.2;
  EXPECT_GT(run(s, slowed), run(s, plain));
  SimCosts none = fixed(3000);
  none.compute_slowdown_while_comm = 0;
  EXPECT_EQ(run(s, none), run(s, plain));
}

// Two ranks by hand: rank 0 posts a P2P op to rank 1 without waiting, computes 1000 ns, then waits for it;
// rank 1 computes `rank1_ns` first, then posts its side and waits. A transfer takes 400 ns.
std::vector<Program> overlapped_pair(bool rank0_sends, SimTime rank1_ns) {
  std::vector<Program> ranks(2);
  Task compute;
  compute.kind = Task::Kind::kCompute;
  compute.duration = 1000;
  Task async;
  async.blocking = false;
  async.handle = 0;
  Task wait;
  wait.kind = Task::Kind::kWait;
  wait.handle = 0;
  const P2POp out{rank0_sends, 1, 1 << 20, 7}, in{!rank0_sends, 0, 1 << 20, 7};
  ranks[0].add_p2p(async, &out, 1);
  ranks[0].tasks.push_back(compute);
  ranks[0].tasks.push_back(wait);
  if (rank1_ns > 0) {
    Task first = compute;
    first.duration = rank1_ns;
    ranks[1].tasks.push_back(first);
  }
  ranks[1].add_p2p(Task{}, &in, 1);
  return ranks;
}

SimTime rank0_end(const std::vector<Program>& ranks, double slowdown) {
  SimCosts c = fixed(400);
  c.compute_slowdown_while_comm = slowdown;
  return simulate(ranks, {}, c).ranks[0].end;
}

// The pass is slowed only while the transfer runs beside it: 400 ns at 1 / 1.25 of its speed (320 ns of its
// work), the other 680 ns at full speed.
TEST(Simulator, ComputeIsSlowedOnlyWhileATransferRunsBesideIt) {
  for (const bool sends : {true, false}) {
    EXPECT_EQ(rank0_end(overlapped_pair(sends, 0), 0), 1000) << sends;
    EXPECT_EQ(rank0_end(overlapped_pair(sends, 0), 0.25), 1080) << sends;
  }
}

// Rank 1 posts at 500 ns, in the middle of rank 0's pass: the transfer [500, 900) moves that pass's end from
// 1000 to 500 + 400 + (1000 - 500 - 320) = 1080.
TEST(Simulator, ATransferMatchedDuringAPassMovesItsEnd) {
  const std::vector<Program> ranks = overlapped_pair(false, 500);
  EXPECT_EQ(rank0_end(ranks, 0), 1000);
  EXPECT_EQ(rank0_end(ranks, 0.25), 1080);
  SimCosts c = fixed(400);
  c.compute_slowdown_while_comm = 0.25;
  const SimResult r = simulate(ranks, {}, c, true);
  EXPECT_EQ(r.ranks[0].compute, 1080);  // the pass as it ran, slowed
  const auto pass = std::find_if(r.trace.begin(), r.trace.end(),
                                 [](const TraceEvent& e) { return e.rank == 0 && e.track == "compute"; });
  ASSERT_NE(pass, r.trace.end());
  EXPECT_EQ(pass->start, 0);
  EXPECT_EQ(pass->end, 1080);
}

// A receive still waiting for its sender moves no data: the pass beside it runs at full speed, and the
// transfer after it slows nothing (rank 0 is waiting by then).
TEST(Simulator, AReceiveWaitingForItsSenderSlowsNothing) {
  const std::vector<Program> ranks = overlapped_pair(false, 3000);
  EXPECT_EQ(rank0_end(ranks, 0.25), 3400);
  SimCosts c = fixed(400);
  c.compute_slowdown_while_comm = 0.25;
  EXPECT_EQ(simulate(ranks, {}, c).ranks[0].compute, 1000);
}

TEST(Simulator, CollectivesWaitForEveryMember) {
  std::vector<Program> tasks(2);
  Task c0;
  c0.kind = Task::Kind::kCompute;
  c0.duration = 100;
  Task coll;
  coll.kind = Task::Kind::kCollective;
  coll.collective = 0;
  tasks[0].tasks = {c0, coll};
  tasks[1].tasks = {coll};
  const auto r = simulate(tasks, {{{0, 1}, 50, "embedding all_reduce"}}, zero(), true);
  EXPECT_EQ(r.iteration, 150);
  EXPECT_EQ(r.ranks[1].waiting, 100);  // waited for rank 0,
  EXPECT_EQ(r.ranks[1].blocked, 50);   // then the collective ran
  EXPECT_FALSE(r.trace.empty());
}

// A transfer costs what its sender's call costs as a batch when p2p_batch knows it. Two ranks: rank 0 sends
// alone (a 1-op call), rank 1 receives it in a 2-op call that also sends back; rank 0 receives that alone.
// Singles: 1000 ns each, in series (the second waits for rank 0's first call): 2000 ns. With the batch cost of
// a 1-op call 100 ns: 0 -> 1 takes 100 ns (its sender's call has one op), 1 -> 0 still 1000 ns (its sender's
// call has two ops, no batch figure): 1100 ns.
TEST(Simulator, ATransferTakesItsSendersBatchCostWhenKnown) {
  std::vector<Program> progs(2);
  auto call = [](Program& prog, std::vector<P2POp> ops) {
    Task t;
    t.name = "call";
    prog.add_p2p(t, ops.data(), ops.size());
  };
  call(progs[0], {{true, 1, 64, 0}});
  call(progs[0], {{false, 1, 64, 1}});
  call(progs[1], {{false, 0, 64, 0}, {true, 0, 64, 1}});
  SimCosts c;
  c.p2p = [](int, int, std::int64_t) { return SimTime{1000}; };
  EXPECT_EQ(simulate(progs, {}, c).iteration, 2000);
  c.p2p_batch = [](int, int, std::int64_t, const P2POp*, int nops, int) { return nops == 1 ? SimTime{100} : -1; };
  EXPECT_EQ(simulate(progs, {}, c).iteration, 1100);
}

// Iterations back to back (SimIterations): each rank's programs of `s` ended by an optimizer step of
// opt(r) ns, played n times under `rule`.
std::vector<Program> with_steps(const ScheduleSpec& s, const std::function<SimTime(int)>& opt) {
  std::vector<Program> progs = generate_schedule(s);
  for (std::size_t r = 0; r < progs.size(); ++r) {
    Task t;
    t.duration = opt(static_cast<int>(r));
    t.name = "optimizer";
    progs[r].tasks.push_back(t);
  }
  return progs;
}

SimResult iterations(const std::vector<Program>& progs, const SimCosts& c, StepRule rule, int n = 3) {
  return simulate(progs, {}, c, true, nullptr, {n, rule});
}

// Where nothing overlaps (one pipeline rank) the steady state is the cold iteration, under either rule: the rank
// goes on with its next iteration where it ended the last.
TEST(Simulator, OneRanksSteadyStateIsItsColdIteration) {
  for (const char* kind : {"1f1b", "zb-h1", "zb-h2"}) {
    const auto progs = with_steps(spec(kind, 1, 1, 8, 1000, 2000), [](int) { return SimTime{700}; });
    const SimTime cold = simulate(progs, {}, zero()).iteration;
    EXPECT_EQ(cold, 8 * 3000 + 700) << kind;
    for (const StepRule rule : {StepRule::kSynchronous, StepRule::kPostValidation}) {
      const SimResult run = iterations(progs, fixed(50), rule);
      EXPECT_EQ(steady_iteration(run), cold) << kind;
      EXPECT_EQ(run.iteration, 3 * cold) << kind;
    }
  }
}

// Megatron's synchronous step: every rank starts the next iteration at the last rank's end, so each iteration
// repeats the cold one (the same transfers, links free, collectives done), and the steady state is the cold
// iteration to the nanosecond, with transfers that take time and ranks whose steps differ.
TEST(Simulator, SynchronousIterationsRepeatTheColdOne) {
  for (const ScheduleSpec& s : {spec("1f1b", 4, 1, 8, 1000, 2000), spec("interleaved", 4, 2, 8, 1000, 2000),
                                spec("zb-h2", 4, 1, 8, 1000, 2000)}) {
    const auto progs = with_steps(s, [](int r) { return SimTime{300} * (r + 1); });
    const SimTime cold = simulate(progs, {}, fixed(170)).iteration;
    const SimResult run = iterations(progs, fixed(170), StepRule::kSynchronous, 4);
    EXPECT_EQ(steady_iteration(run), cold) << s.id.key();
    ASSERT_EQ(run.iteration_ends.size(), 4u);
    for (std::size_t k = 0; k < 4; ++k) {
      EXPECT_EQ(*std::max_element(run.iteration_ends[k].begin(), run.iteration_ends[k].end()),
                static_cast<SimTime>(k + 1) * cold)
          << s.id.key() << " iteration " << k;
    }
  }
}

// The synchronous step puts no pass of iteration n+1 before the last rank's step of iteration n: every rank's
// first task of the next iteration starts at or after the end of the slowest step (the trace of tasks), while
// post-validation lets a rank that ends early start its next iteration before the others have stepped.
TEST(Simulator, SynchronousStepHoldsTheNextIterationUntilTheLastStep) {
  const auto progs = with_steps(spec("zb-h2", 4, 1, 8, 1000, 2000), [](int r) { return SimTime{400} * (4 - r); });
  const auto first_of_next = [&progs](const SimResult& run, std::size_t r, std::size_t n) {
    return run.task_starts[r].at((n + 1) * progs[r].tasks.size()).start;
  };
  const SimResult sync = iterations(progs, zero(), StepRule::kSynchronous);
  ASSERT_EQ(sync.task_starts.size(), 4u);
  for (std::size_t n = 0; n + 1 < 3; ++n) {
    const SimTime last_step = *std::max_element(sync.iteration_ends[n].begin(), sync.iteration_ends[n].end());
    for (std::size_t r = 0; r < 4; ++r) {
      EXPECT_EQ(sync.task_starts[r][(n + 1) * progs[r].tasks.size() - 1].label, "optimizer");
      EXPECT_GE(first_of_next(sync, r, n), last_step) << "rank " << r << " iteration " << n + 1;
    }
  }
  const SimResult post = iterations(progs, zero(), StepRule::kPostValidation);
  const SimTime last_step = *std::max_element(post.iteration_ends[0].begin(), post.iteration_ends[0].end());
  EXPECT_LT(first_of_next(post, 0, 0), last_step);  // rank 0 starts its second iteration early
  EXPECT_EQ(first_of_next(post, 0, 0), post.iteration_ends[0][0]);
}

// Post-validation (Qi et al. §4): ZB-H2 has no gap inside any rank (its span is 3mt with F = B = W = t), and
// what one cold iteration adds, the (p-1)t its last rank starts late, the next iteration's warm-up fills while
// the last ranks finish: its steady state is the span plus the step, 3mt + o, against 3mt + (p-1)t + o cold
// and with the synchronous step. ZB-H1 keeps the gaps inside its ranks' spans ((p-1)t on rank 0).
TEST(Simulator, PostValidationShortensZbH2ToItsSpan) {
  constexpr SimTime t = 1000, o = 500;
  for (int p : {2, 4, 8}) {
    for (std::int64_t m : {std::int64_t{2} * p, std::int64_t{24}}) {
      const std::string where = "p " + std::to_string(p) + " m " + std::to_string(m);
      const auto h2 = with_steps(spec("zb-h2", p, 1, m, t, 2 * t), [](int) { return o; });
      const SimTime cold = simulate(h2, {}, zero()).iteration;
      EXPECT_EQ(cold, 3 * m * t + (p - 1) * t + o) << where;
      EXPECT_EQ(steady_iteration(iterations(h2, zero(), StepRule::kSynchronous)), cold) << where;
      EXPECT_EQ(steady_iteration(iterations(h2, zero(), StepRule::kPostValidation)), 3 * m * t + o) << where;
      const auto h1 = with_steps(spec("zb-h1", p, 1, m, t, 2 * t), [](int) { return o; });
      EXPECT_EQ(steady_iteration(iterations(h1, zero(), StepRule::kPostValidation)), 3 * m * t + (p - 1) * t + o)
          << where;
    }
  }
}

// The step's checks (SimCollective::step_check) hold every member until the last arrives under the synchronous
// step; post-validation validates them later: they hold no rank, so rank 0, done first, ends at once.
TEST(Simulator, PostValidationTakesTheStepsChecksOffTheStep) {
  std::vector<Program> progs(2);
  for (int r = 0; r < 2; ++r) {
    Task work;
    work.duration = 1000 * (r + 1);
    progs[static_cast<std::size_t>(r)].tasks.push_back(work);
    Task check;
    check.kind = Task::Kind::kCollective;
    check.collective = 0;
    progs[static_cast<std::size_t>(r)].tasks.push_back(check);
  }
  SimCollective check;
  check.members = {0, 1};
  check.duration = 100;
  check.label = "found_inf (max)";
  check.step_check = true;
  const SimResult sync = simulate(progs, {check}, zero(), false, nullptr, {2, StepRule::kSynchronous});
  EXPECT_EQ(sync.iteration_ends[0][0], 2100);
  EXPECT_EQ(sync.iteration, 4200);
  const SimResult post = simulate(progs, {check}, zero(), false, nullptr, {2, StepRule::kPostValidation});
  EXPECT_EQ(post.iteration_ends[0][0], 1000);
  EXPECT_EQ(post.iteration_ends[1][0], 2000);
  EXPECT_EQ(post.iteration, 4000);
  check.step_check = false;  // any other collective holds its members under either rule
  EXPECT_EQ(simulate(progs, {check}, zero(), false, nullptr, {2, StepRule::kPostValidation}).iteration, 4200);
}

}  // namespace
}  // namespace pipebench
