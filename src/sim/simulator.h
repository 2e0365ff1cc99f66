// SPDX-License-Identifier: Apache-2.0
// Discrete-event simulator: plays per-rank task lists against a cost model in integer nanoseconds.
// P2P is a rendezvous (a transfer starts when both sides have posted it and its link is free),
// blocking calls hold the rank until every op is done, async ones until a later wait; collectives
// start when every member has arrived. Deterministic: ties are broken by rank and posting order.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "schedule/schedule_registry.h"
#include "sim/compiled_program.h"
#include "sim/task.h"

namespace pipebench {

struct SimCollective {
  std::vector<int> members;  // pipeline ranks taking part
  SimTime duration = 0;      // alone
  std::string label;
  // Collectives of one share_key (>= 0) share a resource of share_capacity collectives at full speed
  // (sim/shared_resource.h): more of them at once take longer than `duration`. -1: nothing shared.
  int share_key = -1;
  double share_capacity = 0;
  // One of the optimizer step's checks (megatron/plan.h is_step_check): under StepRule::kPostValidation it is
  // validated later, off the step (it takes no time and holds no rank); otherwise it is played.
  bool step_check = false;
};

struct SimCosts {
  // Transfer time of `bytes` from pipeline rank src to dst.
  std::function<SimTime(int src, int dst, std::int64_t bytes)> p2p;
  // Optional: the time of a transfer as part of the sending rank's call (`ops`, `nops`: that call's ops,
  // `caller`: the sender), i.e. of the batch Megatron issues together; a negative result falls back to p2p.
  std::function<SimTime(int src, int dst, std::int64_t bytes, const P2POp* ops, int nops, int caller)> p2p_batch;
  // Which link a transfer occupies: transfers on the same link run one after another. Default: the
  // directed pair. With every pair on one shared path (no GPU P2P: all through the root complex),
  // return the same id for all.
  std::function<int(int src, int dst)> link;
  // Or several links per transfer (its topology path): it starts when all are free and holds them all.
  std::function<std::vector<int>(int src, int dst)> links;
  // Compute runs at 1 / (1 + F) of its speed while a transfer of its own rank runs beside it (from the
  // transfer's start to its end; a receive still waiting for its sender moves no data): NCCL's kernels take
  // SMs and memory bandwidth from the GEMMs (--comm-sm-slowdown F).
  double compute_slowdown_while_comm = 0;
};

struct TraceEvent {
  int rank = 0;
  std::string track;  // compute, send, recv, collectives
  std::string name;
  SimTime start = 0, end = 0;
};

// Where a traced simulation's events go as they are made, instead of SimResult::trace: a large schedule's
// trace (p 64, v 8, 1024 microbatches: about 3.4 million events) takes several times the memory of its
// simulation, and predict --trace only streams it to a file.
using TraceEventSink = std::function<void(const TraceEvent&)>;

struct RankResult {
  // blocked: waiting while the rank's own transfer or collective ran (exposed communication);
  // waiting: blocked before it could start (the peer was not there yet: bubble and dependencies);
  // comm_busy: union of post..completion of its communication (what a profile shows as NCCL time).
  SimTime end = 0, compute = 0, blocked = 0, waiting = 0, comm_busy = 0;
  std::int64_t p2p_bytes_out = 0;
  int p2p_messages_out = 0, p2p_messages_in = 0;
};

// With a kept trace: when a rank reached each of its tasks (its start, or the post of a P2P call), by the
// task's index in the rank's Program, with the task's label (a collective's by its SimCollective label):
// what a replay's measured timeline is held against task by task (replay/task_drift.h).
struct TaskStart {
  std::string label;
  SimTime start = 0;
};

// Iterations played back to back: every rank plays its program `count` times, each iteration with its own
// transfers (tags) and collectives. Between two iterations the rule of the schedule (StepRule): with
// kSynchronous a rank that has ended an iteration waits for every rank to end it (a barrier of no time: the
// optimizer step's all-reduces made a point every rank reaches), with kPostValidation it goes on at once.
struct SimIterations {
  int count = 1;
  StepRule rule = StepRule::kSynchronous;
};

struct SimResult {
  // The end of the last rank's last task (with several iterations: of the last iteration).
  SimTime iteration = 0;
  // The bytes of the P2P transfers on the chain of waits that ends the iteration (each wait: a rank for a
  // transfer, a transfer for its peer's post or its link, a collective for its last member; of equal times
  // the chain with more bytes). Where every transfer takes bytes x x (a link without latency, x ns per
  // byte), this is the iteration's derivative in x: how far a slower link moves it while that chain stays
  // the longest (predict's break-even search steps by it).
  std::int64_t iteration_chain_bytes = 0;
  std::vector<RankResult> ranks;  // with several iterations: their sums
  // [iteration][rank]: when each rank ended each iteration (its last task; with kSynchronous before the
  // barrier that ends it).
  std::vector<std::vector<SimTime>> iteration_ends;
  std::vector<TraceEvent> trace;
  std::vector<std::vector<TaskStart>> task_starts;  // [rank][task]; empty unless the trace is kept
};

// programs[r]: rank r's tasks (kCollective tasks index `collectives`). Throws Error on a deadlock (a
// schedule bug), naming the ranks that are stuck.
// With keep_trace and `events`, each trace event goes to `events` as it is made, and neither the trace nor the
// task starts are kept.
// iterations: how many times each rank plays its program, and what separates them (SimIterations).
[[nodiscard]] SimResult simulate(const std::vector<Program>& programs, const std::vector<SimCollective>& collectives,
                                 const SimCosts& costs, bool keep_trace = false, const TraceEventSink* events = nullptr,
                                 const SimIterations& iterations = {});
// What a simulation of compiled programs fills in: every field but the trace, or the iteration, its chain
// bytes and each rank's end only (what a break-even search asks of its many runs: the per-rank accounts,
// the comm-busy union and the message counts are then not kept: predict of p 64, v 8, 1024 microbatches,
// interleaved v 8 alone, measured 5 to 8 % less CPU).
enum class SimDetail : std::uint8_t { kRanks, kIterationOnly };
// The same simulation of programs compiled once (sim/compiled_program.h), as a caller that simulates them
// many times keeps them (predict's break-even search); without a trace (its labels are the source's).
[[nodiscard]] SimResult simulate(const std::vector<CompiledProgram>& programs,
                                 const std::vector<SimCollective>& collectives, const SimCosts& costs,
                                 SimDetail detail = SimDetail::kRanks, const SimIterations& iterations = {});

// The steady state of a run of several iterations (SimResult::iteration_ends, at least 2): on the rank that
// ends the last iteration last, the time from its end of the iteration before to its end of the last one.
// With one iteration: that iteration (its last rank's end).
[[nodiscard]] SimTime steady_iteration(const SimResult& run);

}  // namespace pipebench
