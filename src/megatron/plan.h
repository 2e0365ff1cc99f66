// SPDX-License-Identifier: Apache-2.0
// Plan: every message each rank issues in one training iteration, per schedule (1F1B, and interleaved
// for each valid v), from Megatron-LM arguments (megatron.md §2-§9).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/dtype.h"
#include "megatron/layout.h"
#include "megatron/model_args.h"
#include "megatron/plan_op.h"
#include "schedule/program.h"
#include "schedule/schedule_id.h"

namespace pipebench {

enum class Phase { kWarmup, kSteady, kCooldown, kPipeline, kAfter };
[[nodiscard]] const char* phase_name(Phase p);  // warm-up, steady, cool-down, pipeline, after

// Where an in-schedule collective's calls run, per iteration: in forward passes, in backward passes, and in the
// forward that full recompute runs again inside a backward pass (megatron.md §6). The simulator and the replay
// place a collective by these counts; a P2P half and a collective after the pipeline have none (all zero).
struct PassCalls {
  std::int64_t forward = 0, backward = 0, recompute = 0;
  [[nodiscard]] std::int64_t total() const { return forward + backward + recompute; }
  // Calls that run inside backward passes: the backward's own and the recomputed forward's.
  [[nodiscard]] std::int64_t in_backward() const { return backward + recompute; }
};

struct PlanMessage {
  int id = 0;
  int rank = 0;               // global rank that issues it
  PlanOp op;                  // send, recv, or a collective Megatron issues (all_reduce, broadcast, ...)
  std::vector<int> group;     // global ranks (send/recv: the two ranks)
  int peer = -1;              // send/recv
  std::int64_t elements = 0;  // whole tensor (for all_gather: the gathered result, reduce_scatter: the input)
  DType dtype = DType::kFloat;
  std::int64_t bytes = 0;
  std::int64_t count = 0;  // per iteration
  Phase phase = Phase::kAfter;
  PassCalls passes;  // in-schedule collectives: count split by pass (passes.total() == count); else zero
  std::string what;  // activation, activation grad, dp grad chunk 1, word-embedding grad, ...
  // MoE all-to-all and expert-TP messages: the size is the balanced expectation (every expert gets
  // tokens x topk / experts); the router decides the real split per microbatch.
  bool routing_dependent = false;
  // send/recv: the messages of this rank and schedule with the same batch id go out together, in one
  // Megatron call (`call`), `count` times (each time one of each); -1: alone (a plan without batch ids).
  int batch = -1;
  std::string call;  // send/recv: the Megatron call of the batch ("send_forward_recv_backward")
};

// The optimizer step's scalar all-reduces over the model-parallel group or the world (found_inf, the
// grad norm, update_successful, the grad-norm statistic, the rerun flag): what makes Megatron's step a
// point every rank reaches, and what the Zero Bubble paper's post-validation takes off the step
// (StepRule::kPostValidation, schedule/schedule_registry.h).
[[nodiscard]] bool is_step_check(const PlanMessage& msg);

struct ChunkParams {
  int pp_rank = 0, chunk = 0;
  std::int64_t params = 0;  // per TP rank
  int layers = 0;           // transformer layers of the chunk (pipeline_split.h)
};

struct Schedule {
  ScheduleId id;                     // 1f1b, interleaved with v > 1 (make_plan), gpipe as a reference (predict, replay)
  std::vector<std::int64_t> warmup;  // per pipeline rank
  double bubble_ideal = 0;           // (p-1)/m, interleaved (p-1)/(v m) (Narayanan et al. 2021, §2.2)
  std::vector<ChunkParams> params;
  std::vector<PlanMessage> messages;
};

struct Plan {
  MegatronArgs args;
  Layout layout;
  // Derived from args by make_plan (padded_vocab, grad_dtype); kept as values so a plan read back from
  // its file carries them without the arguments that decided them.
  std::int64_t padded_vocab_size = 0;
  DType grad_dtype = DType::kFloat;
  std::vector<int> valid_v;
  std::vector<Schedule> schedules;
  std::vector<int> listed_ranks;  // ranks whose messages are listed (all, or one per pipeline stage at scale)
  std::vector<std::string> notes;
};

// A schedule a command runs: one of the plan's, or a reference (GPipe) on the 1F1B schedule's messages.
struct PlannedSchedule {
  ScheduleId id;                       // a schedule file's carries its generator
  const Schedule* schedule = nullptr;  // the plan's schedule whose warm-up, params and messages it uses
  bool reference = false;

  // What a command builds and runs: that schedule under this id.
  [[nodiscard]] Schedule to_run() const {
    Schedule s = *schedule;
    s.id = id;
    return s;
  }
};

// The schedules of `plan` that `selection` picks: the plan's in order, then every reference generator's on
// the plan's 1F1B schedule, then the selection's schedule files (references) on the plan's schedule of
// their v (1F1B, or interleaved). Empty when none matches. Throws UsageError for a schedule file whose v
// the plan has no schedule for.
[[nodiscard]] std::vector<PlannedSchedule> selected_schedules(const Plan& plan, const ScheduleSelection& selection);

// "1f1b, interleaved:v2, gpipe": every schedule a selection can pick from `plan`.
[[nodiscard]] std::string schedule_names(const Plan& plan);

// The ranks listed in a plan: every rank up to this world size, else one pipeline group.
inline constexpr int kListEveryRankUpTo = 4096;

// schedules: 1F1B, then interleaved for the v given, or for every valid v when none is given.
// Throws UsageError for configurations Megatron rejects.
[[nodiscard]] Plan make_plan(const MegatronArgs& args, int gpus_present);

// Warm-up forwards of pipeline rank r: 1F1B min(p-r-1, m), interleaved megatron.md §3b.
[[nodiscard]] std::int64_t warmup_microbatches(const MegatronArgs& a, const Layout& l, int v, int r);

// The shape Megatron runs schedule `id` in on this layout, the one the plan's messages, the simulator and the
// replay share: per pipeline rank the forwards before its first backward (warmup_microbatches), and the forward table,
// (microbatch, chunk) of forward virtual microbatch k < m v (§3b: groups of N microbatches, chunk-major inside;
// core_v0.9: the closed form).
[[nodiscard]] ScheduleShape megatron_shape(const MegatronArgs& a, const Layout& l, const ScheduleId& id);

// The DP bucket size (elements) of a model chunk: 0 (one bucket) unless --overlap-grad-reduce on chunk 0
// of pipeline rank 0; then the rank's parameters // --ddp-num-buckets, or --ddp-bucket-size, or
// max(40M, 1M x dp x cp).
[[nodiscard]] std::int64_t dp_bucket_size(const MegatronArgs& a, const Layout& l, int pp_rank, int chunk, int v);

// DP gradient buckets (elements) of one model chunk in the order they are reduced (§4): parameters in
// reverse registration order, a bucket closing once it reaches dp_bucket_size; with the distributed
// optimizer 64-element param alignment, bucket ends padded, and the shared word embedding alone.
// expert: the buckets of the chunk's expert parameters instead (their own buffer, sharded over the expert
// DP group: distributed_data_parallel.py groups params by is_expert_parallel).
// fp8: the buckets of the FP8 buffer (--fp8-param-gather, ParamTensor::fp8) instead of the parameter-dtype
// one; each buffer is bucketed and padded on its own (group_params_for_buffers: one buffer per param dtype).
[[nodiscard]] std::vector<std::int64_t> dp_buckets(const MegatronArgs& a, const Layout& l, int pp_rank, int chunk,
                                                   int v, bool expert = false, bool fp8 = false);

}  // namespace pipebench
