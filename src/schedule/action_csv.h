// SPDX-License-Identifier: Apache-2.0
// PyTorch pipelining's schedule CSV (torch/distributed/pipelining/schedules.py: _Action, _ComputationType,
// _dump_csv / _load_csv): one row per pipeline rank, written by Python's csv.writer (CRLF line ends, an
// idle step as an empty cell), each cell one action "[stage][type][microbatch]": 0F3 (stage 0 forward
// of microbatch 3), 1I2 (input gradient), 1W2 (weight gradient), 1B2 (full backward), 0SEND_F3,
// 1RECV_F3, 1SEND_B2, 0RECV_B2; UNSHARD, RESHARD and REDUCE_GRAD (FSDP's, no microbatch); and
// "(0F1;1B2)OVERLAP_F_B" (DualPipeV's overlapped pair, read as its actions in order). This file reads the
// text into actions; what they mean for a plan is schedule_file.h's.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace pipebench {

enum class ActionType : std::uint8_t {
  kForward,         // F
  kBackwardInput,   // I: the activation gradient alone (pipebench's B of a split backward)
  kBackwardWeight,  // W
  kFullBackward,    // B: activation and weight gradient together
  kSendF,
  kRecvF,
  kSendB,
  kRecvB,
  kUnshard,
  kReshard,
  kReduceGrad,
};

struct ScheduleAction {
  ActionType type = ActionType::kForward;
  int stage = 0;
  std::int64_t microbatch = -1;  // -1: an action without one (UNSHARD, RESHARD, REDUCE_GRAD)
  int row = 0, cell = 0;         // where the file has it, from 1
  std::string text;              // the cell as written, for messages

  [[nodiscard]] bool compute() const { return type <= ActionType::kFullBackward; }
  [[nodiscard]] bool communication() const { return type >= ActionType::kSendF && type <= ActionType::kRecvB; }
};

// Stages and microbatches a cell may name: far beyond any plan (which is checked next), small enough
// that stage x microbatch tables cannot overflow.
inline constexpr int kMaxCsvStage = 1 << 16;
inline constexpr std::int64_t kMaxCsvMicrobatch = std::int64_t{1} << 24;

// The rows of `text`, each its actions in order (empty cells dropped; blank rows at the end dropped), row
// R being line R. Throws UsageError "WHAT: row R, cell C 'TEXT': ..." for a cell that is no action, and
// "WHAT: row R has no action ..." for a blank row (or one of empty cells) before the last row.
[[nodiscard]] std::vector<std::vector<ScheduleAction>> parse_action_csv(std::string_view text, const std::string& what);

}  // namespace pipebench
