// SPDX-License-Identifier: Apache-2.0
// Calibration from a job's profile. A job whose every cost is known: the simulator plays 1F1B with a compute
// model of its own per rank (a host time per pass, a P2P transfer, the tied-embedding all-reduce, an optimizer
// step), and its timeline is written as the PyTorch profiler writes a CPU rank's trace (cpu_op operators,
// record_param_comms around each c10d call, ProfilerStep and Optimizer ranges). Calibrating from those files
// must give back the costs it was made with, re-simulate the profiled schedule, and predict the others as the
// known model does. Then profiles that do not fit the plan.
#include "trace/profile_calibration.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "collectives/registry.h"
#include "core/error.h"
#include "io/plan_io.h"
#include "megatron/plan.h"
#include "sim/schedule_build.h"
#include "trace/job_fixture.h"
#include "trace/nsys_fixture.h"

namespace pipebench {
namespace {

Plan plan_of(const std::string& args) {
  std::istringstream in(args);
  std::vector<std::string> w;
  for (std::string x; in >> x;) w.push_back(x);
  return plan_from_json(plan_to_json(make_plan(parse_megatron_args(w), 0)), "test plan");
}

// 8 layers on 4 stages, 8 microbatches; the tied embedding is all-reduced between the first and last stage.
const char* kModel =
    "--num-layers 8 --hidden-size 512 --num-attention-heads 8 --seq-length 128 --max-position-embeddings 128 "
    "--micro-batch-size 1 --global-batch-size 8 --pipeline-model-parallel-size 4 --vocab-size 512 --world-size 4";

// The job's true costs: a transfer of 0.3 ms; an all-reduce 0.2 ms + 1 ns per 10 bytes (the plan's after the
// pipeline: the embedding, the DP gradients of each chunk, four scalars); nothing else.
class TrueCost final : public CostModel {
 public:
  CommCost cost(const Op& op, const std::vector<int>&, std::int64_t bytes) const override {
    if (op.traits().is_transfer) return {300'000, "true"};
    if (op.name() == "all_reduce") return {200'000 + bytes / 10, "true"};
    return {0, "true"};
  }
};

ComputeModel true_compute(const Plan& plan) {
  ComputeModel c;
  c.source = "true";
  c.fwd_ms_per_layer = 1;
  c.bwd_ms_per_layer = 2;
  c.output_layer_fwd_ms = c.fwd_ms_per_layer * output_layer_ratio(plan);
  const double fwd[] = {1.0, 1.2, 0.9, 1.1}, host[] = {0.1, 0.2, 0.15, 0.05};
  for (int r = 0; r < 4; ++r) c.ranks.push_back({fwd[r], 2 * fwd[r], 0.5, host[r], 3.0 + r});
  return c;
}

std::string us(SimTime ns) {
  char b[64];
  std::snprintf(b, sizeof b, "%lld.%03lld", static_cast<long long>(ns / 1000), static_cast<long long>(ns % 1000));
  return b;
}

// One rank's trace of the simulated iteration, as torch.profiler writes a CPU rank: every pass an operator
// that ends where its host time begins, every transfer and collective a record_param_comms from the rank's
// post (its previous work's end) to the transfer's end.
void write_rank(const std::string& path, const SimResult& sim, const ComputeModel& c, int rank, SimTime base) {
  std::ostringstream ev;
  const double host_ms = c.ranks[static_cast<std::size_t>(rank)].pass_overhead_ms;
  const SimTime host = static_cast<SimTime>(host_ms * 1e6 + 0.5);
  SimTime ready = 0, end = 0;
  bool first = true;
  const auto emit = [&](const std::string& cat, const std::string& name, SimTime s, SimTime e,
                        const std::string& args) {
    ev << (first ? "" : ",\n") << R"({"ph":"X","cat":")" << cat << R"(","name":")" << name
       << R"(","pid":100,"tid":7,"ts":)" << us(s) << R"(,"dur":)" << us(e - s) << args << "}";
    first = false;
  };
  std::vector<TraceEvent> mine;
  for (const auto& e : sim.trace)
    if (e.rank == rank) mine.push_back(e);
  std::stable_sort(mine.begin(), mine.end(), [](const auto& a, const auto& b) { return a.start < b.start; });
  for (const auto& e : mine) {
    if (e.track == "compute" && e.name == "optimizer") {
      emit("user_annotation", "Optimizer.step#SGD.step", e.start, e.end, "");
      emit("cpu_op", "aten::add_", e.start, e.end, "");
      ready = e.end;
    } else if (e.track == "compute") {
      emit("cpu_op", "aten::mm", e.start, e.end - host, "");
      ready = e.end;
    } else {
      const std::string what = e.track == "send" ? "send" : e.track == "recv" ? "recv" : "allreduce";
      emit("cpu_op", "record_param_comms", std::min(ready, e.start), e.end,
           R"(,"args":{"Collective name":")" + what + R"("})");
      ready = std::max(ready, e.end);
    }
    end = std::max(end, e.end);
  }
  emit("user_annotation", "ProfilerStep#3", 0, end + 1000, "");
  std::ofstream(path) << R"({"schemaVersion":1,"baseTimeNanoseconds":)" << base
                      << R"(,"distributedInfo":{"backend":"gloo","rank":)" << rank
                      << R"(,"world_size":4},"traceEvents":[)" << ev.str() << "]}\n";
}

struct Job {
  Plan plan = plan_of(kModel);
  ComputeModel truth = true_compute(plan);
  TrueCost costs;
  std::string dir = testing::make_temp_dir("calib");
  std::vector<RankTimeline> timelines;

  explicit Job(const std::string& schedule = "1f1b") {
    const Prediction p = predict(plan, costs, truth, false, true, schedule);
    for (int r = 0; r < 4; ++r) {
      const std::string path = dir + "/rank" + std::to_string(r) + ".json";
      write_rank(path, p.schedules.front().sim, truth, r, 1'700'000'000'000'000'000);
      timelines.push_back(read_rank_timeline(path));
    }
  }
  [[nodiscard]] double iteration(const std::string& schedule, const CostModel& c, const ComputeModel& m) const {
    return iteration(plan, schedule, c, m);
  }
  [[nodiscard]] static double iteration(const Plan& plan, const std::string& schedule, const CostModel& c,
                                        const ComputeModel& m) {
    const Prediction p = predict(plan, c, m, false, false, schedule);
    for (const auto& s : p.schedules)
      if (s.id.key() == schedule) return s.iteration_ms;
    return -1;
  }
};

const MeasuredTerm* term(const Calibration& c, const std::string& name, int rank) {
  for (const auto& t : c.terms)
    if (t.term == name && t.rank == rank) return &t;
  return nullptr;
}

TEST(RankTimeline, ReadsACpuRankOfTheSyntheticJob) {
  const Job job;
  const RankTimeline& t = job.timelines[1];
  EXPECT_FALSE(t.gpu);
  EXPECT_TRUE(t.aligned);
  EXPECT_EQ(t.rank.value(), 1);
  EXPECT_EQ(t.world_size.value(), 4);
  ASSERT_EQ(t.steps.size(), 1u);
  EXPECT_EQ(t.compute.size(), 17u);  // 8 forwards, 8 backwards, the optimizer's operator
  EXPECT_EQ(t.optimizer.size(), 1u);
  // Every P2P call of the 1F1B program, then the plan's all-reduces after the pipeline.
  const auto p2p = std::count_if(t.comms.begin(), t.comms.end(), [](const TimelineComm& c) { return c.p2p; });
  EXPECT_GE(p2p, 16);
  for (const auto& c : t.comms) EXPECT_TRUE(c.p2p ? c.op == "send" || c.op == "recv" : c.op == "all_reduce") << c.op;
  EXPECT_EQ(t.steps.front().start_ns, 1'700'000'000'000'000'000);
}

TEST(PassMarker, PyTorchActionNames) {
  const auto m = parse_pass_marker("PP:12I7");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->stage, 12);
  EXPECT_EQ(m->pass, 'I');
  EXPECT_EQ(m->microbatch, 7);
  EXPECT_FALSE(parse_pass_marker("PP:1X3"));
  EXPECT_FALSE(parse_pass_marker("PP:F3"));
  EXPECT_FALSE(parse_pass_marker("PP:1F"));
  EXPECT_FALSE(parse_pass_marker("PP:1F3x"));
  EXPECT_FALSE(parse_pass_marker("Forward 3"));
}

TEST(ProfileCalibration, GivesBackTheCostsTheJobWasMadeWith) {
  const Job job;
  const Calibration c = calibrate(job.plan, job.timelines, {});
  EXPECT_EQ(c.schedule.key(), "1f1b");
  EXPECT_EQ(c.schedule_reason, "its passes match the profile");
  EXPECT_EQ(c.iterations, 1);
  ASSERT_EQ(c.compute.ranks.size(), 4u);
  for (std::size_t r = 0; r < 4; ++r) {
    const RankCompute& want = job.truth.ranks[r];
    const RankCompute& got = c.compute.ranks[r];
    // The last stage's forward and backward run back to back (no call between): their stretch is split 1:2,
    // with the host time between them inside it.
    const double tol = r == 3 ? 0.03 : 0.002;
    EXPECT_NEAR(got.fwd_ms_per_layer, want.fwd_ms_per_layer, tol * want.fwd_ms_per_layer) << "rank " << r;
    EXPECT_NEAR(got.bwd_ms_per_layer, want.bwd_ms_per_layer, tol * want.bwd_ms_per_layer) << "rank " << r;
    EXPECT_NEAR(got.pass_overhead_ms, want.pass_overhead_ms, 0.002) << "rank " << r;
    EXPECT_NEAR(got.optimizer_ms, want.optimizer_ms, 0.002) << "rank " << r;
  }
  const MeasuredTerm* p2p = term(c, "P2P transfer", -1);
  ASSERT_NE(p2p, nullptr);
  EXPECT_NEAR(p2p->ms, 0.3, 0.01);
  EXPECT_NE(p2p->source.find("passes that waited"), std::string::npos);
  const auto emb = std::find_if(c.terms.begin(), c.terms.end(), [](const MeasuredTerm& t) {
    return t.term == "word-embedding grad (all_reduce of ranks 0,3)";
  });
  ASSERT_NE(emb, c.terms.end());
  EXPECT_NEAR(emb->ms, 0.2 + 1048576e-7, 1e-6);
  ASSERT_NE(term(c, "forward per layer", 2), nullptr);
  EXPECT_NE(term(c, "forward per layer", 2)->source.find("rank2.json: 16 passes over 1 iteration"), std::string::npos);
}

TEST(ProfileCalibration, ReSimulatesTheProfiledScheduleAndPredictsTheOthers) {
  const Job job;
  const Calibration c = calibrate(job.plan, job.timelines, {});
  const double truth_1f1b = job.iteration("1f1b", job.costs, job.truth);
  const Prediction resim = predict(c.plan, *c.costs, c.compute, false, true, "1f1b");
  const ProfileCheck check = check_profiled(c, resim.schedules.front());
  EXPECT_NEAR(check.measured_ms, truth_1f1b, 1e-3 * truth_1f1b);
  EXPECT_NEAR(check.simulated_ms, truth_1f1b, 0.005 * truth_1f1b);
  ASSERT_EQ(check.ranks.size(), 4u);
  for (const auto& r : check.ranks) EXPECT_NEAR(r.simulated_end_ms, r.measured_end_ms, 0.01 * truth_1f1b);
  ASSERT_FALSE(check.largest.empty());
  EXPECT_LE(std::abs(check.largest.front().simulated_start_ms - check.largest.front().measured_start_ms),
            0.01 * truth_1f1b);
  // The schedules nobody profiled, from the profile's terms and from the true model.
  for (const std::string s : {"interleaved:v2", "gpipe"}) {
    const double truth = job.iteration(s, job.costs, job.truth);
    const double from_profile = Job::iteration(c.plan, s, *c.costs, c.compute);
    EXPECT_NEAR(from_profile, truth, 0.01 * truth) << s;
  }
}

// A profile whose schedule runs B and W as one backward cannot show how a split schedule divides it, nor what
// a W pass of its own costs; the calibration says both, with the share it uses instead.
TEST(ProfileCalibration, AFusedBackwardSaysWhatItCannotShowOfASplitOne) {
  const Job job;
  for (const std::optional<double> given : {std::optional<double>(), std::optional<double>(0.3)}) {
    const Calibration c = calibrate(job.plan, job.timelines, {"", given});
    const auto note = std::find_if(c.notes.begin(), c.notes.end(), [](const std::string& n) {
      return n.rfind("W's share of the backward is not in a profile of 1f1b", 0) == 0;
    });
    ASSERT_NE(note, c.notes.end());
    EXPECT_NE(note->find(given ? "0.30 (--w-share)" : "0.50 (default)"), std::string::npos) << *note;
    EXPECT_NE(note->find("B + W = the measured backward, a lower bound"), std::string::npos) << *note;
    EXPECT_EQ(c.compute.w_share, given.value_or(0.5));
  }
}

TEST(ProfileCalibration, MatchesTheScheduleThatRanOrRefusesAnother) {
  const Job gpipe("gpipe");
  const Calibration c = calibrate(gpipe.plan, gpipe.timelines, {});
  EXPECT_EQ(c.schedule.key(), "gpipe");
  try {
    (void)calibrate(gpipe.plan, gpipe.timelines, {"1f1b", std::nullopt});
    FAIL() << "a GPipe profile calibrated as 1F1B";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("rank3.json: 15 stretches of compute"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("schedule 1f1b"), std::string::npos) << e.what();
  }
}

TEST(ProfileCalibration, ProfilesThatDoNotFitThePlanAreOneLineEach) {
  const Job job;
  const auto message = [](std::vector<RankTimeline> t, const Plan& plan) {
    try {
      (void)calibrate(plan, t, {});
    } catch (const UsageError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  auto missing = job.timelines;
  missing.erase(missing.begin() + 2);
  EXPECT_NE(message(missing, job.plan).find("no profile of rank 2"), std::string::npos);
  auto twice = job.timelines;
  twice[3].rank = 1;
  EXPECT_NE(message(twice, job.plan).find("are both rank 1"), std::string::npos);
  auto world = job.timelines;
  world[0].world_size = 8;
  EXPECT_NE(message(world, job.plan).find("a job of 8 ranks, the plan's has 4"), std::string::npos);
  // Another number of microbatches: the plan's 16 passes per rank are not there.
  const Plan more = plan_of(std::string(kModel) + " --global-batch-size 12");
  const std::string m = message(job.timelines, more);
  EXPECT_NE(m.find("match none of the plan's schedules"), std::string::npos) << m;
  EXPECT_EQ(m.find('\n'), std::string::npos);
  // A profile with no iteration in it: the step range ends before any pass.
  auto empty = job.timelines;
  for (auto& t : empty) t.steps.front().end_ns = t.steps.front().start_ns + 1;
  EXPECT_NE(message(empty, job.plan).find("match none"), std::string::npos);
}

#if PB_HAVE_SQLITE
// The same job on GPU ranks, each written as an Nsight Systems export of its kernels: every pass a compute
// kernel (on stream 7, device 1; a stray kernel on device 0), every transfer an NCCL SendRecv kernel, every
// collective an AllReduce kernel, the optimizer a kernel after them; a ProfilerStep NVTX range and the session's
// wall clock. No call or range names the optimizer: it is what runs after the collectives after the pipeline.
TEST(ProfileCalibration, GpuRanksFromNsightSystemsExportsGiveBackTheirCosts) {
  const Plan plan = plan_of(kModel);
  const ComputeModel truth = true_compute(plan);
  const TrueCost costs;
  const Prediction p = predict(plan, costs, truth, false, true, "1f1b");
  const std::string dir = testing::make_temp_dir("calib_nsys");
  std::vector<RankTimeline> timelines;
  for (int r = 0; r < 4; ++r) {
    const std::string path = dir + "/rep_" + std::to_string(r) + ".sqlite";
    {
      testing::NsysFixture f(path);
      f.exec("CREATE TABLE TARGET_INFO_SESSION_START_TIME (utcEpochNs INTEGER, utcTime TEXT, localTime TEXT)");
      f.exec("INSERT INTO TARGET_INFO_SESSION_START_TIME VALUES (1700000000000000000, '', '')");
      const auto gemm = f.str("sm90_xmma_gemm_bf16"), p2p = f.str("ncclDevKernel_SendRecv"),
                 ar = f.str("ncclDevKernel_AllReduce_Sum_f32_RING_LL");
      const auto host = static_cast<SimTime>(truth.ranks[static_cast<std::size_t>(r)].pass_overhead_ms * 1e6 + 0.5);
      SimTime end = 0, n = 0, ready = 0;
      f.kernel(0, 7, 0, 10, gemm, ++n, 100);
      std::vector<TraceEvent> mine;
      for (const auto& e : p.schedules.front().sim.trace)
        if (e.rank == r) mine.push_back(e);
      std::stable_sort(mine.begin(), mine.end(), [](const auto& a, const auto& b) { return a.start < b.start; });
      for (const auto& e : mine) {
        end = std::max(end, e.end);
        if (e.track == "compute") {
          f.kernel(1, 7, e.start, e.name == std::string("optimizer") ? e.end : e.end - host, gemm, ++n, 100);
          ready = e.end;
        } else {
          // An NCCL kernel runs from the call's launch, spinning until its peer is there.
          f.kernel(1, e.track == "collectives" ? 21 : 20, std::min(ready, e.start), e.end,
                   e.track == "collectives" ? ar : p2p, ++n, 100);
          ready = std::max(ready, e.end);
        }
      }
      f.nvtx(100, 100, 0, end + 1000, "ProfilerStep#4");
    }
    timelines.push_back(read_rank_timeline(path));
  }
  EXPECT_TRUE(timelines[2].gpu);
  EXPECT_TRUE(timelines[2].aligned);
  EXPECT_EQ(timelines[2].what, "kernels of GPU 1");
  ASSERT_EQ(timelines[2].steps.size(), 1u);
  EXPECT_EQ(timelines[2].steps.front().start_ns, 1700000000000000000);
  const Calibration c = calibrate(plan, timelines, {});
  EXPECT_EQ(c.schedule.key(), "1f1b");
  for (std::size_t r = 0; r < 3; ++r) {
    EXPECT_NEAR(c.compute.ranks[r].fwd_ms_per_layer, truth.ranks[r].fwd_ms_per_layer, 0.002) << r;
    EXPECT_NEAR(c.compute.ranks[r].pass_overhead_ms, truth.ranks[r].pass_overhead_ms, 0.002) << r;
    EXPECT_NEAR(c.compute.ranks[r].optimizer_ms, truth.ranks[r].optimizer_ms, 0.002) << r;
  }
  const Prediction resim = predict(c.plan, *c.costs, c.compute, false, true, "1f1b");
  EXPECT_NEAR(check_profiled(c, resim.schedules.front()).error(), 0, 0.005);
}
#endif

// PyTorch's own pipelining, profiled on 4 CPU ranks over gloo (tests/fixtures/trace/pipelining: how it was made,
// and the medians of 10 timed iterations of each schedule).
const std::string kPipelining = std::string(TEST_DATA_DIR) + "/trace/pipelining";
const char* kPipeliningModel =
    "--num-layers 8 --hidden-size 512 --ffn-hidden-size 2048 --num-attention-heads 4 --seq-length 128 "
    "--max-position-embeddings 128 --micro-batch-size 1 --global-batch-size 8 --pipeline-model-parallel-size 4 "
    "--world-size 4 --vocab-size 128 --untie-embeddings-and-output-weights --num-layers-per-virtual-pipeline-stage 1";

std::vector<RankTimeline> pipelining(const std::string& schedule) {
  std::vector<RankTimeline> out;
  for (int r = 0; r < 4; ++r)
    out.push_back(read_rank_timeline(kPipelining + "/" + schedule + "/rank" + std::to_string(r) + ".json.gz"));
  return out;
}

double measured_median(const std::string& torch_schedule) {
  std::ifstream in(kPipelining + "/measured.json");
  return nlohmann::json::parse(in).at("schedules").at(torch_schedule).at("median_ms").get<double>();
}

double predicted(const Prediction& p, const std::string& key) {
  for (const auto& s : p.schedules)
    if (s.id.key() == key) return s.iteration_ms;
  return -1;
}

TEST(ProfileCalibration, PyTorchPipelining1F1BProfilePredictsItsOwnRunAndInterleaving) {
  const Plan plan = plan_of(kPipeliningModel);
  const Calibration c = calibrate(plan, pipelining("1f1b"), {});
  EXPECT_EQ(c.schedule.key(), "1f1b");
  EXPECT_TRUE(c.compute.sends_block);  // Schedule1F1B waits for a send before it posts the next
  // Nothing after the pipeline: the job reduces no embedding and no gradients, so nothing holds the ranks there.
  for (const auto& s : c.plan.schedules)
    for (const auto& m : s.messages) EXPECT_NE(m.phase, Phase::kAfter) << m.what;
  const Prediction resim = predict(c.plan, *c.costs, c.compute, false, true, "1f1b");
  const ProfileCheck check = check_profiled(c, resim.schedules.front());
  EXPECT_NEAR(check.error(), 0, 0.02) << check.simulated_ms << " vs " << check.measured_ms;
  const Prediction all = predict(c.plan, *c.costs, c.compute, false, false, "");
  EXPECT_NEAR(predicted(all, "1f1b") / measured_median("Schedule1F1B"), 1, 0.02);
  // PyTorch's interleaved runtime never waits for a send before the end of the step; its 1F1B does, and a 1F1B
  // profile cannot show the difference: interleaving is predicted 6 % slower than it ran (1.16x where 1.23x was
  // measured), but predicted to win.
  EXPECT_NEAR(predicted(all, "interleaved:v2") / measured_median("ScheduleInterleaved1F1B"), 1, 0.08);
  EXPECT_EQ(all.best, "interleaved v=2");
}

TEST(ProfileCalibration, PyTorchPipeliningInterleavedProfileIsMatchedByItsActionRanges) {
  const Plan plan = plan_of(kPipeliningModel);
  const auto timelines = pipelining("interleaved");
  EXPECT_FALSE(timelines[1].markers.empty());
  const Calibration c = calibrate(plan, timelines, {});
  EXPECT_EQ(c.schedule.key(), "interleaved:v2");
  EXPECT_FALSE(c.compute.sends_block);  // the runtime posts its sends and goes on
  const Prediction resim = predict(c.plan, *c.costs, c.compute, false, true, "interleaved:v2");
  const ProfileCheck check = check_profiled(c, resim.schedules.front());
  EXPECT_NEAR(check.error(), 0, 0.02) << check.simulated_ms << " vs " << check.measured_ms;
  const double interleaved = measured_median("ScheduleInterleaved1F1B");
  EXPECT_NEAR(
      predicted(predict(c.plan, *c.costs, c.compute, false, false, "interleaved:v2"), "interleaved:v2") / interleaved,
      1, 0.03);
  try {
    (void)calibrate(plan, timelines, {"1f1b", std::nullopt});
    FAIL() << "an interleaved profile calibrated as 1F1B";
  } catch (const UsageError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("rank0.json.gz: pass F of stage 4, microbatch 0 is not the schedule 1f1b's"), std::string::npos)
        << m;
  }
}

// A GPU rank: the compute is the device's non-NCCL kernels, the calls its NCCL kernels (SendRecv: P2P; the
// others by the collective their name or c10d's metadata says); the device with the most kernels is the rank's.
TEST(RankTimeline, ReadsAGpuRankFromItsKernels) {
  const std::string dir = testing::make_temp_dir("timeline_gpu");
  const std::string path = dir + "/rank1.json";
  std::ofstream(path) << R"({"baseTimeNanoseconds": 1000000, "distributedInfo": {"rank": 1, "world_size": 2},
    "traceEvents": [
    {"ph":"X","cat":"kernel","name":"sm90_xmma_gemm_bf16","pid":0,"tid":7,"ts":10.0,"dur":5.0,"args":{"stream":7}},
    {"ph":"X","cat":"kernel","name":"ncclDevKernel_SendRecv","pid":0,"tid":20,"ts":16.0,"dur":2.0},
    {"ph":"X","cat":"kernel","name":"sm90_xmma_gemm_bf16","pid":0,"tid":7,"ts":19.0,"dur":5.0},
    {"ph":"X","cat":"kernel","name":"ncclDevKernel_AllReduce_Sum_bf16_RING_LL","pid":0,"tid":21,"ts":25.0,"dur":3.0},
    {"ph":"X","cat":"kernel","name":"ncclKernel_AllReduce_RING_LL_Sum_half","pid":0,"tid":21,"ts":29.0,"dur":1.0,
     "args":{"Collective name":"allreduce"}},
    {"ph":"X","cat":"kernel","name":"elementwise","pid":3,"tid":7,"ts":5.0,"dur":1.0},
    {"ph":"X","cat":"user_annotation","name":"ProfilerStep#2","pid":100,"tid":100,"ts":1.0,"dur":40.0}]})";
  const RankTimeline t = read_rank_timeline(path);
  EXPECT_TRUE(t.gpu);
  EXPECT_EQ(t.what, "kernels of GPU 0");
  EXPECT_EQ(t.rank.value(), 1);
  ASSERT_EQ(t.compute.size(), 2u);
  EXPECT_EQ(t.compute.front().start_ns, 1000000 + 10000);
  ASSERT_EQ(t.comms.size(), 3u);
  EXPECT_TRUE(t.comms[0].p2p);
  EXPECT_EQ(t.comms[0].op, "sendrecv");
  EXPECT_FALSE(t.comms[1].p2p);
  EXPECT_EQ(t.comms[1].op, "all_reduce");
  EXPECT_EQ(t.comms[2].op, "all_reduce");
  ASSERT_EQ(t.steps.size(), 1u);
  EXPECT_EQ(t.steps.front().end_ns - t.steps.front().start_ns, 40000);
}

TEST(RankTimeline, RefusesWhatIsNoWholeTrace) {
  const std::string dir = testing::make_temp_dir("timeline");
  const auto refused = [&dir](const std::string& name, const std::string& text) {
    std::ofstream(dir + "/" + name) << text;
    try {
      (void)read_rank_timeline(dir + "/" + name);
    } catch (const UsageError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(refused("a.json", "[1,2").find("a.json"), std::string::npos);
  EXPECT_NE(refused("b.json", R"({"traceEvents":[]})").find("no kernels and no CPU operators"), std::string::npos);
  EXPECT_NE(refused("c.json", R"({"traceEvents":[{"ph":"X","cat":"cpu_op","name":"aten::mm","ts":1,"dur":2},)")
                .find("breaks at byte"),
            std::string::npos);
}

}  // namespace
}  // namespace pipebench
