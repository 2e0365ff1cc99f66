// SPDX-License-Identifier: Apache-2.0
// A schedule read from a file (--schedule-file): per pipeline rank, the actions of PyTorch pipelining's
// CSV (action_csv.h) in the order the rank runs them, checked against the plan's pipeline and turned into
// a generator (schedule_registry.h) that writes the same program values a registered one does, so that
// predict and replay run it like any other schedule.
//
// Placement is PyTorch's looped one (schedules.py, generate_stage_to_rank_mapping): stage s on rank
// s mod p, stages / p chunks per rank, chunk s / p. V-shaped placement (rank r holding stages r and
// 2p-1-r: ZBVZeroBubble, DualPipeV) is refused: the program model places chunks looped.
//
// The calls are Megatron's, as its 1F1B issues them (schedules.py forward_backward_pipelining_without_
// interleaving; one_f_one_b.cc): before a compute action that takes an input its receive (recv_forward,
// recv_backward), after one that makes an output its send (send_forward, send_backward), each a blocking
// batch_isend_irecv; a send whose rank next takes an input in the other direction (F then B, B then F)
// carries that receive in the same call (send_forward_recv_backward, send_backward_recv_forward). A send
// directly followed by a W is posted async and waited for after that W, as zero_bubble_steps.h does. So a
// file that lists 1F1B's (or ZB-H1's) order gives 1F1B's (ZB-H1's) program exactly, for m >= p (with
// fewer microbatches Megatron's warm-up takes every forward and its last send goes alone).
// With several chunks per rank the calls are Megatron's interleaved ones with overlap (interleaved.cc):
// forward and backward each on their own, an async send_forward_recv_forward after a forward that posts
// the receive of the rank's next forward, an async send_backward_recv_backward after a backward with the
// next backward's, each waited for just before the pass it feeds. A blocking call that carried the next
// pass's receive whatever its direction would hold a rank's forward send until its peer reached a backward
// that, in interleaved's order, comes only after a forward of another chunk: a ring of waits that
// Megatron's calls never form, and a false deadlock.
// SEND_F/RECV_F/SEND_B/RECV_B of a file are checked (each send with its receive on the peer's row, after
// and before the compute they belong to, and present for every transfer once a file has any), but where
// they stand does not move the calls: PyTorch's runtime posts them async; pipebench runs Megatron's calls.
// UNSHARD, RESHARD and REDUCE_GRAD (FSDP's) take no time here.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "schedule/schedule_id.h"

namespace pipebench {

// The largest schedule file read (a p 64, v 8, 1024-microbatch schedule with explicit communication is
// about 30 MB of cells).
inline constexpr std::int64_t kMaxScheduleFileBytes = std::int64_t{64} << 20;

// The schedule of the file at `path`, for a pipeline of p ranks and m microbatches: name "file:STEM"
// (the file's name without folder and extension, characters other than letters, digits, '.', '_', '-'
// as '_'), v = its stages / p, and its generator. Throws UsageError, one line "FLAG PATH: row R, cell C
// 'TEXT': ..." (row and cell where there is one), for a file that is not a regular file or is larger than
// kMaxScheduleFileBytes, a cell that is no action, rows that are not p, a stage outside the plan or not on
// its rank, a microbatch count that is not m, a (stage, microbatch) without its F and B (or I and W), a
// send without its receive, and a schedule that deadlocks.
[[nodiscard]] ScheduleId load_schedule_file(const std::string& flag, const std::string& path, int p, std::int64_t m);

// The same for the text of a file; `what` ("--schedule-file F") starts every message, `stem` names it.
[[nodiscard]] ScheduleId schedule_from_csv(const std::string& what, std::string_view text, const std::string& stem,
                                           int p, std::int64_t m);

// Whether `name` is a schedule file's ("file:..."): what files written by predict and replay may name.
[[nodiscard]] bool is_file_schedule_name(std::string_view name);

// The "FLAG PATH" a schedule of load_schedule_file was read from, for messages; "" for any other.
[[nodiscard]] std::string schedule_file_source(const ScheduleId& id);

}  // namespace pipebench
