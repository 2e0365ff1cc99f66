// SPDX-License-Identifier: Apache-2.0
// Cost model: the time of a message of any size on a given pair or group. MeasuredCost interpolates a
// results table (bench --plan / bench / pairs) in log-size, AssumedCost is a what-if alpha-beta link,
// ZeroCost makes communication free (tests, compute-only bounds).
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "collectives/op.h"
#include "core/rank_pair.h"
#include "harness/record.h"
#include "sim/task.h"
#include "topology/link_class.h"
#include "topology/placement.h"

namespace pipebench {

struct CommCost {
  SimTime time = 0;
  std::string source;  // "measured", "measured (extrapolated)", "assumed", "zero"
};

// Disjoint groups running one collective at once (`bench --plan`'s at-once records): how much slower
// than alone. sim/shared_resource.h models the resource they share from it.
struct Sharing {
  std::string op;
  int group_size = 0, groups = 0;  // ranks per group, groups at once
  std::int64_t bytes = 0;          // the size that was timed
  double alone_us = 0;             // the slowest group alone (the table's own records)
  double together_us = 0;          // all groups at once
  double slowdown = 1;             // together / alone
  int key = 0;                     // which measurement: collectives of one key share one resource
  // Collectives at full speed the resource carries: groups / slowdown (at least 1).
  [[nodiscard]] double capacity() const { return slowdown > 1 ? groups / slowdown : groups; }
};

// False for groups of 1 rank: their "collective" is a local copy that crosses no link, so its slowdown
// together says nothing of a shared link; the report and predict's console leave such terms out.
[[nodiscard]] inline bool crosses_link(const Sharing& s) { return s.group_size >= 2; }

// "4 groups of 1 rank ran all_reduce of 25192448 bytes at once 2.21x slower than alone (4871.2 vs
// 2203.4 us): a resource of 1.81 at full speed" (predict's console and the report).
[[nodiscard]] std::string describe_sharing(const Sharing& s);

class CostModel {
 public:
  virtual ~CostModel() = default;
  // op: the registry's op (the transfer op for P2P, OpRegistry::transfer_op); ranks: sorted global ranks.
  // Throws UsageError when the model has nothing for this op and group.
  [[nodiscard]] virtual CommCost cost(const Op& op, const std::vector<int>& ranks, std::int64_t bytes) const = 0;
  // The time of a call whose transfers (global src -> dst, sorted) go out together, each of `bytes`: a
  // batch of the plan timed as one call (bench --plan). Empty when the model has no such measurement:
  // then each transfer costs `cost(transfer op, ...)`.
  [[nodiscard]] virtual std::optional<CommCost> batch_cost(const std::vector<RankPair>& /*transfers*/,
                                                           std::int64_t /*bytes*/) const {
    return std::nullopt;
  }
  [[nodiscard]] virtual bool has_batch_costs() const { return false; }
  // The at-once measurement of `op` on groups of `group_size` ranks nearest to `bytes` (log size); empty
  // when the model has none (then collectives never slow each other down).
  [[nodiscard]] virtual std::optional<Sharing> sharing(const Op& /*op*/, int /*group_size*/,
                                                       std::int64_t /*bytes*/) const {
    return std::nullopt;
  }
};

class ZeroCost final : public CostModel {
 public:
  CommCost cost(const Op&, const std::vector<int>&, std::int64_t) const override { return {0, "zero"}; }
};

// time = latency + bytes x factor / bandwidth, with the op's bus factor from the op registry (nccl-tests:
// all_reduce 2(n-1)/n, all_gather and reduce_scatter (n-1)/n, broadcast and pair 1): a link of `gbps`
// GB/s per direction.
class AssumedCost final : public CostModel {
 public:
  AssumedCost(double gbps, double latency_us) : gbps_(gbps), latency_us_(latency_us) {}
  // --link CLASS=GBPS[,US]: groups of that class use this link instead (needs placed ranks); a class given
  // again takes the later link.
  void set_class_link(const LinkClass& cls, double gbps, double latency_us) {
    per_class_.emplace_back(cls, std::make_pair(gbps, latency_us));
  }
  void set_classes(Placement placement) { placement_ = std::move(placement); }
  CommCost cost(const Op& op, const std::vector<int>& ranks, std::int64_t bytes) const override;

 private:
  double gbps_, latency_us_;
  std::vector<std::pair<LinkClass, std::pair<double, double>>> per_class_;
  Placement placement_;
};

// From the records of a results file (pipebench.results/1): per (op, ranks), log-log interpolation
// between measured sizes; outside them an alpha-beta line through the two nearest points.
class MeasuredCost final : public CostModel {
 public:
  // placement: where the records' ranks ran (their link classes for --class-fallback and messages); path
  // names the file in messages. Throws UsageError naming it when no record is usable.
  MeasuredCost(const std::vector<ResultRecord>& records, Placement placement, const std::string& path);
  // --class-fallback: a group that was not measured takes the measurements of a group of the same op,
  // size and link class (flagged in the cost source).
  void allow_class_fallback() { fallback_ = true; }
  CommCost cost(const Op& op, const std::vector<int>& ranks, std::int64_t bytes) const override;
  // Records of the transfer op (bench --plan's batches, bench --pairs, pairs) by their transfers.
  std::optional<CommCost> batch_cost(const std::vector<RankPair>& transfers, std::int64_t bytes) const override;
  bool has_batch_costs() const override { return !batches_.empty(); }
  // From the records that ran on several groups at once (ResultRecord::at_once), against the slowest of
  // their groups alone at the same size (interpolated as cost() does).
  std::optional<Sharing> sharing(const Op& op, int group_size, std::int64_t bytes) const override;

 private:
  std::string path_;
  std::vector<ResultRecord> together_;                                                          // the at-once records
  std::map<std::vector<std::pair<int, int>>, std::vector<std::pair<double, double>>> batches_;  // size, us
  void add_batch_record(const ResultRecord& r);
  std::map<std::pair<std::string, std::vector<int>>, std::vector<std::pair<double, double>>> points_;  // size, us
  Placement placement_;
  bool fallback_ = false;
};

// A table imported from nccl-tests (`pipebench import nccl-tests`: "source": "nccl-tests") holds one
// N-rank collective (the usual case: all_reduce_perf -g 8), and stands for the machine:
// - a group and op the table measured is interpolated as MeasuredCost does ("measured (nccl-tests OP)");
// - P2P: a sendrecv table, where present, as it is ("nccl-tests sendrecv"); else b bytes cost the
//   table's time at its smallest size (its latency) + b / busbw(b), busbw at the nearest measured sizes
//   interpolated on log size ("derived from nccl-tests OP");
// - a collective on k ranks: latency + b x the op's bus factor for k / busbw(b) (the inverse of busbw =
//   algbw x factor, nccl-tests doc/PERFORMANCE.md), "derived from nccl-tests OP".
// The reference table is all_reduce where present (else another collective, else sendrecv), of the
// most ranks, out-of-place (nccl-tests' first columns).
class NcclTestsCost final : public CostModel {
 public:
  // Throws ModelError naming `path` when no table has a bus bandwidth to derive from.
  NcclTestsCost(const std::vector<ResultRecord>& records, const std::string& path);
  CommCost cost(const Op& op, const std::vector<int>& ranks, std::int64_t bytes) const override;
  [[nodiscard]] const std::string& reference_op() const { return reference_op_; }
  [[nodiscard]] int reference_nranks() const { return reference_nranks_; }
  [[nodiscard]] bool has_sendrecv() const { return !sendrecv_.empty(); }
  [[nodiscard]] double latency_us() const { return latency_us_; }
  // The size whose time is taken as the latency: the reference table's smallest.
  [[nodiscard]] double latency_size_bytes() const { return latency_size_bytes_; }
  // busbw at `bytes`: linear in log size between the nearest measured sizes, the end values outside.
  [[nodiscard]] double busbw_gbps(double bytes) const;

 private:
  std::string reference_op_;
  int reference_nranks_ = 0;
  double latency_us_ = 0;
  double latency_size_bytes_ = 0;
  std::vector<std::pair<double, double>> busbw_;     // size, GB/s (size > 0, busbw > 0)
  std::vector<std::pair<double, double>> sendrecv_;  // size, us
  std::map<std::pair<std::string, std::vector<int>>, std::vector<std::pair<double, double>>> measured_;
};

}  // namespace pipebench
