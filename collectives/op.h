// SPDX-License-Identifier: Apache-2.0
// Op: one collective or point-to-point pattern. It knows its sizes, its bus-bandwidth factor, how to
// issue itself on a Backend and where its check data lives; the harness does everything else once.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "backend/backend.h"
#include "core/data_layout.h"
#include "core/dtype.h"
#include "core/rank_pair.h"

namespace pipebench {

// Settings that only some ops read.
struct OpParams {
  int root = 0;                 // broadcast
  std::vector<RankPair> pairs;  // pair
  bool bidirectional = false;   // pair: every listed pair also sends dst -> src
};

// The nccl-tests size convention (getCollByteCount): `count` is the count passed to the call,
// `size_bytes` is max(send, recv) bytes, the "size" column and the numerator of algbw.
struct Sizing {
  std::size_t count = 0;
  std::size_t size_bytes = 0;
  std::size_t send_bytes = 0;  // per rank, buffer needs
  std::size_t recv_bytes = 0;
};

// Everything an op needs to issue one call for one local rank.
struct CallArgs {
  const Buffers& buffers;
  const Sizing& sizing;
  DType dtype;
  RedOp redop;
  bool in_place;
  const OpParams& params;
};

class Op {
 public:
  virtual ~Op() = default;
  [[nodiscard]] virtual std::string_view name() const = 0;
  [[nodiscard]] virtual bool reduces() const = 0;
  [[nodiscard]] virtual bool supports_in_place() const = 0;
  [[nodiscard]] virtual bool has_root() const { return false; }
  // REQUIRES: nranks >= 1. elem_bytes > 0.
  [[nodiscard]] virtual Sizing sizing(std::size_t requested_bytes, std::size_t elem_bytes, int nranks,
                                      const OpParams& params) const = 0;
  [[nodiscard]] virtual double bus_bw_factor(int nranks) const = 0;
  [[nodiscard]] virtual DataLayout layout(const Sizing& s, int rank, int nranks, bool in_place,
                                          const OpParams& params) const = 0;
  virtual void issue(Backend& backend, int local, const CallArgs& args) const = 0;
  // Rejects params this op cannot run with (e.g. a pair naming a rank out of range).
  virtual void validate(int /*nranks*/, const OpParams& /*params*/) const {}
  // Takes its transfers from OpParams::pairs (--pairs) and records them: `--op all` leaves it out unless
  // --pairs is given, and --pairs/--bidir apply only to it.
  [[nodiscard]] virtual bool needs_pairs() const { return false; }
  // Times a plan's point-to-point messages (a send and its recv between two ranks, one way or both ways
  // at once); exactly one registered op does.
  [[nodiscard]] virtual bool times_plan_transfers() const { return false; }
  // Params for one plan point on a group of two ranks: forward = group[0] sends to group[1], backward =
  // the reverse. Ops that do not time plan transfers run with the defaults.
  [[nodiscard]] virtual OpParams transfer_params(bool /*forward*/, bool /*backward*/) const { return {}; }
  // How a plan point run with these params names the op ("send", "sendrecv both"); default its name.
  [[nodiscard]] virtual std::string plan_label(const OpParams& /*params*/) const { return std::string(name()); }
};

}  // namespace pipebench
