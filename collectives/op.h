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
  int root = 0;                  // broadcast
  std::vector<RankPair> pairs;   // pair
  bool bidirectional = false;    // pair: every listed pair also sends dst -> src
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
  [[nodiscard]] virtual Sizing sizing(std::size_t requested_bytes, std::size_t elem_bytes,
                                      int nranks, const OpParams& params) const = 0;
  [[nodiscard]] virtual double bus_bw_factor(int nranks) const = 0;
  [[nodiscard]] virtual DataLayout layout(const Sizing& s, int rank, int nranks, bool in_place,
                                          const OpParams& params) const = 0;
  virtual void issue(Backend& backend, int local, const CallArgs& args) const = 0;
  // Rejects params this op cannot run with (e.g. a pair naming a rank out of range).
  virtual void validate(int /*nranks*/, const OpParams& /*params*/) const {}
};

}  // namespace pipebench
