// SPDX-License-Identifier: Apache-2.0
// Plan -> per-rank jobs: the schedules, pipeline peers, after-pipeline collectives and bad input.
#include "replay/plan_jobs.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>
#include <tuple>

#include "core/error.h"
#include "megatron/model_args.h"
#include "megatron/plan.h"
#include "schedule/schedule_registry.h"
#include "sim/cost_model.h"
#include "sim/schedule_build.h"

namespace pipebench {
namespace {

Plan small_plan() {
  const MegatronArgs a = parse_megatron_args({"--num-layers",
                                              "8",
                                              "--hidden-size",
                                              "256",
                                              "--num-attention-heads",
                                              "4",
                                              "--seq-length",
                                              "64",
                                              "--max-position-embeddings",
                                              "64",
                                              "--micro-batch-size",
                                              "1",
                                              "--global-batch-size",
                                              "8",
                                              "--pipeline-model-parallel-size",
                                              "4",
                                              "--world-size",
                                              "4",
                                              "--vocab-size",
                                              "1000",
                                              "--fp16"});
  return make_plan(a, 4);
}

ComputeOptions fixed() {
  ComputeOptions c;
  c.fwd_ms_per_layer = 1;
  return c;
}

int count(const Program& p, Task::Kind k) {
  int n = 0;
  for (const auto& t : p.tasks) n += t.kind == k;
  return n;
}

// The in-schedule collectives of one pipeline rank, by pass, as the replay issues them and as the simulator folds
// them: calls per message after forward and after backward steps (replay), and the collectives' time the folded
// forward and backward steps carry beyond the plain ones (simulator). Both must follow the plan's PassCalls.
using MessageKey = std::tuple<std::string, std::int64_t, std::vector<int>, std::string>;  // op, bytes, group, what

MessageKey key_of(const std::string& op, std::int64_t bytes, std::vector<int> group, const std::string& what) {
  std::sort(group.begin(), group.end());
  return {op, bytes, group, what};
}

void expect_same_passes(const Plan& plan, const std::string& name) {
  ComputeOptions o;
  o.fwd_ms_per_layer = 1;
  const ComputeModel compute = make_compute_model(plan, o);
  const AssumedCost link(10, 5);
  for (const Schedule& s : plan.schedules) {
    const ScheduleBuild plain = build_schedule(plan, s, compute, link, false);
    const ScheduleBuild folded = build_schedule(plan, s, compute, link, true);
    const PlanJobs pj = plan_jobs(plan, compute, plain.ranks.front(), s.id.key());
    for (std::size_t r = 0; r < plain.ranks.size(); ++r) {
      const std::string where = name + " " + s.id.key() + " pipeline rank " + std::to_string(r);
      // The plan's calls per pass and the simulator's time per pass.
      std::map<MessageKey, std::pair<std::int64_t, std::int64_t>> planned;  // forward, in backward
      double fwd_ms = 0, bwd_ms = 0;
      for (const CostedMessage& cm : plain.inside[r]) {
        const PlanMessage& m = cm.message;
        ASSERT_EQ(m.passes.total(), m.count) << where << ": " << m.what;
        auto& n = planned[key_of(std::string(m.op.name()), m.bytes, m.group, m.what)];
        n.first += m.passes.forward;
        n.second += m.passes.in_backward();
        const double call_ms = cm.ms / static_cast<double>(m.count);
        fwd_ms += call_ms * static_cast<double>(m.passes.forward);
        bwd_ms += call_ms * static_cast<double>(m.passes.in_backward());
      }
      double folded_fwd = 0, folded_bwd = 0;
      std::int64_t steps = 0;
      const auto& fp = folded.programs[r].tasks;
      const auto& pp = plain.programs[r].tasks;
      ASSERT_EQ(fp.size(), pp.size()) << where;
      for (std::size_t i = 0; i < fp.size(); ++i) {
        if (fp[i].kind != Task::Kind::kCompute || fp[i].mb < 0 || fp[i].pass == Pass::kWeight) continue;
        const double d = static_cast<double>(fp[i].duration - pp[i].duration) / 1e6;
        (fp[i].pass == Pass::kForward ? folded_fwd : folded_bwd) += d;
        ++steps;
      }
      const double tol = 1e-6 * static_cast<double>(steps) + 1e-9 * (fwd_ms + bwd_ms);
      EXPECT_NEAR(folded_fwd, fwd_ms, tol) << where;
      EXPECT_NEAR(folded_bwd, bwd_ms, tol) << where;
      // The replay of the same rank (its own pipeline group's job: the first group's ranks here).
      if (r != 0) continue;
      const RankJob& job = pj.jobs.front();
      std::map<MessageKey, std::pair<std::int64_t, std::int64_t>> issued;
      bool after_forward = true;
      for (const Task& t : job.program.tasks) {
        if (t.kind == Task::Kind::kCompute && t.mb >= 0) after_forward = t.pass == Pass::kForward;
        if (t.kind != Task::Kind::kCollective) continue;
        const ReplayCollective& c = job.collectives.at(static_cast<std::size_t>(t.collective));
        const MessageKey k = key_of(std::string(c.op->name()), c.bytes, c.group, c.label);
        if (planned.count(k) == 0) continue;  // after the pipeline
        (after_forward ? issued[k].first : issued[k].second) += c.count;
      }
      for (auto& [k, n] : planned) {
        if (n.first == 0 && n.second == 0) continue;
        EXPECT_EQ(issued[k], n) << where << ": " << std::get<3>(k) << " (" << std::get<0>(k) << ")";
      }
    }
  }
}

std::vector<std::string> args_fixture(const std::string& file) {
  std::ifstream in(std::string(TEST_DATA_DIR) + "/megatron/" + file);
  EXPECT_TRUE(in.good()) << file;
  std::vector<std::string> out;
  for (std::string line; std::getline(in, line);)
    if (!line.empty() && line[0] != '#') out.push_back(line);
  return out;
}

std::vector<std::string> words(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> w;
  for (std::string x; in >> x;) w.push_back(x);
  return w;
}

TEST(PlanJobs, TheSimulatorAndTheReplayPlaceEveryCollectiveInTheSamePasses) {
  // The example launches of the fixtures, and small models for each rule: TP with and without SP, full
  // recompute, context parallelism, MoE.
  for (const auto& [file, world] : std::vector<std::pair<std::string, int>>{
           {"gpt3_175b.args", 128}, {"llama3_8b_h100_fp8.args", 32}, {"mixtral_8x7b.args", 64}}) {
    std::vector<std::string> a = args_fixture(file);
    a.insert(a.end(), {"--world-size", std::to_string(world)});
    // Fewer microbatches: the rule is the same for every count, the build much smaller.
    for (std::size_t i = 0; i + 1 < a.size(); ++i)
      if (a[i] == "--global-batch-size") a[i + 1] = "64";
    SCOPED_TRACE(file);
    expect_same_passes(make_plan(parse_megatron_args(a), 0), file);
  }
  const std::string base =
      "--num-layers 8 --hidden-size 256 --num-attention-heads 4 --seq-length 64 --max-position-embeddings 64 "
      "--micro-batch-size 1 --global-batch-size 8 --pipeline-model-parallel-size 2 --vocab-size 1000 --bf16 ";
  for (const std::string extra :
       {"--tensor-model-parallel-size 2 --world-size 4",
        "--tensor-model-parallel-size 2 --sequence-parallel --world-size 4",
        "--tensor-model-parallel-size 2 --recompute-granularity full --recompute-method uniform "
        "--recompute-num-layers 1 --world-size 4",
        "--context-parallel-size 2 --world-size 4 --num-layers-per-virtual-pipeline-stage 2",
        "--num-experts 4 --expert-model-parallel-size 2 --tensor-model-parallel-size 2 --sequence-parallel "
        "--world-size 8"}) {
    expect_same_passes(make_plan(parse_megatron_args(words(base + extra)), 0), extra);
  }
}

TEST(PlanJobs, EverySchedulePlusGpipeWithComputeFromTheModel) {
  const auto plan = small_plan();
  const PlanJobs pj = plan_jobs(plan, fixed(), 1, "all");
  // The plan's schedules, then the references in name order, interleaved-zb with the plan's v.
  std::vector<std::string> keys;
  for (const auto& job : pj.jobs) {
    keys.push_back(job.id.key());
    EXPECT_EQ(job.reference, keys.size() > 2) << job.id.key();
  }
  EXPECT_EQ(keys, (std::vector<std::string>{"1f1b", "interleaved:v2", "gpipe", "interleaved-zb:v2", "zb-2p", "zb-h1",
                                            "zb-h2", "zbv:v2"}));
  EXPECT_DOUBLE_EQ(pj.compute.bwd_ms_per_layer, 2.0);  // default: 2x forward
  for (const auto& job : pj.jobs) {
    EXPECT_EQ(job.pipeline_rank, 1);
    // m = 8 microbatches: m*v forward and m*v backward steps, each 8/(4v) layers long on rank 1; the
    // zero-bubble schedules split each backward into B and W, half each (--w-share 0.5).
    const bool split = schedule_generator(job.id).splits_backward();
    EXPECT_EQ(count(job.program, Task::Kind::kCompute), (split ? 3 : 2) * 8 * job.id.v) << job.id.name;
    for (const auto& t : job.program.tasks) {
      if (t.kind == Task::Kind::kCompute) {
        EXPECT_EQ(t.duration, (t.pass == Pass::kForward || split ? 1 : 2) * 2000000 / job.id.v) << job.id.name;
      }
    }
  }
}

// Replay issues each P2P task as one call (one ncclGroupStart/End, or MPI requests posted together), and
// its P2P tasks are the plan's batches: rank 1 of pp 4, m 8 (1F1B W 2, R 6) issues 2 recv_forward,
// 2 send_forward, 1 recv_forward, 6 send_forward_recv_backward, 5 send_backward_recv_forward, 1
// send_backward, 2 recv_backward and 2 send_backward = 21 calls, as the plan's batch counts say.
TEST(PlanJobs, TheP2PCallsAreThePlansBatches) {
  Plan plan = small_plan();
  const PlanJobs pj = plan_jobs(plan, fixed(), 1, "1f1b");
  std::map<std::string, std::int64_t> program, batches;
  for (const auto& t : pj.jobs.front().program.tasks) {
    if (t.kind == Task::Kind::kP2P && t.nops > 0) ++program[t.name];
  }
  std::map<int, std::pair<std::string, std::int64_t>> by_batch;
  for (const auto& m : plan.schedules.front().messages) {
    if (m.rank == 1 && m.batch >= 0) by_batch[m.batch] = {m.call, m.count};
  }
  for (const auto& [id, b] : by_batch) batches[b.first] += b.second;
  EXPECT_EQ(program, batches);
  std::int64_t calls = 0;
  for (const auto& [name, n] : program) calls += n;
  EXPECT_EQ(calls, 21);
}

TEST(PlanJobs, FirstStageGetsTheEmbeddingAllReduceWithTheLastStage) {
  const PlanJobs pj = plan_jobs(small_plan(), fixed(), 0, "1f1b");
  ASSERT_EQ(pj.jobs.size(), 1u);
  bool embedding = false;
  for (const auto& c : pj.jobs[0].collectives) embedding = embedding || c.group == std::vector<int>{0, 3};
  EXPECT_TRUE(embedding);
  EXPECT_EQ(count(pj.jobs[0].program, Task::Kind::kCollective), static_cast<int>(pj.jobs[0].collectives.size()));
  EXPECT_FALSE(pj.all_groups.empty());
}

// A schedule with post-validation runs its iterations back to back without the step's checks (found_inf, the grad
// norm, ...: validated later, as the prediction's steady state plays them); Megatron's keep them, and both keep
// the embedding all-reduce, a gradient the first stage needs for its step.
TEST(PlanJobs, PostValidationLeavesTheStepsChecksOut) {
  const Plan plan = small_plan();
  const PlanJobs sync = plan_jobs(plan, fixed(), 0, "1f1b"), post = plan_jobs(plan, fixed(), 0, "zb-h2");
  ASSERT_EQ(sync.jobs.size(), 1u);
  ASSERT_EQ(post.jobs.size(), 2u);  // zb-h2, then 1F1B as the baseline
  EXPECT_EQ(sync.jobs[0].step_rule, StepRule::kSynchronous);
  EXPECT_EQ(post.jobs[0].step_rule, StepRule::kPostValidation);
  EXPECT_EQ(post.jobs[1].step_rule, StepRule::kSynchronous);
  const auto labels = [](const RankJob& job) {
    std::vector<std::string> out;
    for (const auto& t : job.program.tasks) {
      if (t.kind == Task::Kind::kCollective)
        out.push_back(job.collectives.at(static_cast<std::size_t>(t.collective)).label);
    }
    return out;
  };
  const std::vector<std::string> all = labels(sync.jobs[0]), some = labels(post.jobs[0]);
  const auto has = [](const std::vector<std::string>& v, const std::string& x) {
    return std::find(v.begin(), v.end(), x) != v.end();
  };
  for (const char* check : {"found_inf (max)", "grad norm (sum)", "update_successful (min)"}) {
    EXPECT_TRUE(has(all, check)) << check;
    EXPECT_FALSE(has(some, check)) << check;
  }
  EXPECT_TRUE(has(some, "word-embedding grad"));
  EXPECT_EQ(all.size(), some.size() + 5);  // found_inf, grad norm, update_successful, grad-norm stat, rerun flag
}

TEST(PlanJobs, BadInputIsAUsageError) {
  const auto plan = small_plan();
  EXPECT_THROW((void)plan_jobs(plan, fixed(), 0, "interleaved:v3"), UsageError);
  EXPECT_THROW((void)plan_jobs(plan, fixed(), 0, "zigzag"), UsageError);
  EXPECT_THROW((void)plan_jobs(plan, fixed(), 7, "all"), UsageError);
  ComputeOptions c = fixed();
  c.fwd_ms_per_layer = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THROW((void)plan_jobs(plan, c, 0, "all"), UsageError);
  c.fwd_ms_per_layer = -1;
  EXPECT_THROW((void)plan_jobs(plan, c, 0, "all"), UsageError);
  EXPECT_THROW((void)plan_jobs(plan, ComputeOptions{}, 0, "all"), UsageError);  // no compute at all
}

TEST(PlanJobs, MoeAllToAllsAreIssuedOnTheEpGroupInTheirForwardAndBackwardSteps) {
  // 8 experts on EP 2, pp 2, world 4: the expert grid is ep 2 x pp 2 (expert tp 1, expert dp 1), so rank
  // 0's EP group is {0,1}. Per layer (1 per stage) and microbatch (m = 4 / 2 = 2): dispatch tokens, probs
  // and combine all-to-all once forward and once backward.
  const MegatronArgs a = parse_megatron_args({"--num-layers",
                                              "2",
                                              "--hidden-size",
                                              "256",
                                              "--num-attention-heads",
                                              "4",
                                              "--seq-length",
                                              "64",
                                              "--max-position-embeddings",
                                              "64",
                                              "--micro-batch-size",
                                              "1",
                                              "--global-batch-size",
                                              "4",
                                              "--pipeline-model-parallel-size",
                                              "2",
                                              "--world-size",
                                              "4",
                                              "--vocab-size",
                                              "1000",
                                              "--fp16",
                                              "--num-experts",
                                              "8",
                                              "--expert-model-parallel-size",
                                              "2",
                                              "--moe-token-dispatcher-type",
                                              "alltoall"});
  const Plan plan = make_plan(a, 4);
  const PlanJobs pj = plan_jobs(plan, fixed(), 0, "1f1b");
  ASSERT_EQ(pj.jobs.size(), 1u);
  const RankJob& job = pj.jobs[0];
  std::int64_t forward_calls = 0, backward_calls = 0;
  for (const auto& t : job.program.tasks) {
    if (t.kind != Task::Kind::kCollective) continue;
    const auto& c = job.collectives.at(static_cast<std::size_t>(t.collective));
    if (c.label.rfind("MoE ", 0) != 0 || c.op->name() != "alltoall") continue;
    EXPECT_EQ(c.group, (std::vector<int>{0, 1})) << c.label;
    EXPECT_EQ(t.pass == Pass::kForward, c.label.find("backward") == std::string::npos) << c.label;
    (t.pass == Pass::kForward ? forward_calls : backward_calls) += c.count;
  }
  // 3 all-to-alls x 1 layer x 2 microbatches each way.
  EXPECT_EQ(forward_calls, 6);
  EXPECT_EQ(backward_calls, 6);
}

}  // namespace
}  // namespace pipebench

namespace pipebench {
namespace {

// The replay issues P2P through the Backend's send and recv, which carry no tag: NCCL, and MPI on one
// tag, match the messages between two ranks in the order they are posted. So in every schedule the
// sends from rank a to rank b are posted in the order b posts its receives from a (the tags match).
TEST(PlanJobs, TransfersBetweenTwoRanksArePostedInTheSameOrderAtBothEnds) {
  const auto plan = small_plan();
  const int p = plan.layout.pp;
  std::vector<PlanJobs> ranks;
  for (int r = 0; r < p; ++r) ranks.push_back(plan_jobs(plan, fixed(), r, "all"));
  for (std::size_t j = 0; j < ranks[0].jobs.size(); ++j) {
    std::map<std::pair<int, int>, std::vector<std::int64_t>> sent, received;  // (from, to) -> tags in post order
    for (int r = 0; r < p; ++r) {
      const RankJob& job = ranks[static_cast<std::size_t>(r)].jobs.at(j);
      for (const Task& t : job.program.tasks) {
        if (t.kind != Task::Kind::kP2P) continue;
        for (std::uint32_t k = t.first_op; k < t.first_op + t.nops; ++k) {
          const P2POp& op = job.program.ops[k];
          const int peer = job.pipeline_ranks.at(static_cast<std::size_t>(op.peer));
          (op.send ? sent[{r, peer}] : received[{peer, r}]).push_back(op.tag);
        }
      }
    }
    EXPECT_FALSE(sent.empty()) << ranks[0].jobs[j].id.key();
    EXPECT_EQ(sent, received) << ranks[0].jobs[j].id.key();
  }
}

}  // namespace
}  // namespace pipebench
