// SPDX-License-Identifier: Apache-2.0
#include "collectives/registry.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

#include "collectives/plan_call.h"
#include "core/error.h"

namespace pipebench {
namespace {

const OpRegistry& ops() { return OpRegistry::instance(); }

// Guards against an op file dropped from the link (static registrars run only for linked objects).
TEST(OpRegistry, HoldsExactlyTheShippedOps) {
  EXPECT_EQ(ops().names(), (std::vector<std::string>{"all_gather", "all_reduce", "alltoall", "broadcast", "gather",
                                                     "pair", "reduce", "reduce_scatter", "scatter", "sendrecv"}));
  EXPECT_EQ(ops().name_list(),
            "all_gather, all_reduce, alltoall, broadcast, gather, pair, reduce, reduce_scatter, scatter, sendrecv");
}

TEST(OpRegistry, UnknownOpNamesTheFlagTheNearestOpAndTheChoices) {
  try {
    (void)ops().find("--op", "all_to_all");
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("--op: unknown op 'all_to_all' (did you mean alltoall?) (one of: all_gather"),
              std::string::npos)
        << e.what();
  }
  try {
    (void)ops().find("--plan", "ncclAllReduce");  // an alias is no name: --op and the plan take names only
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what()).find("--plan: unknown op 'ncclAllReduce'"), 0u) << e.what();
  }
  EXPECT_EQ(ops().get("all_to_all"), nullptr);
  EXPECT_EQ(ops().get("send"), nullptr);  // a half of a transfer, not an op
}

// Every alias an op declares leads back to it, through the query for its kind and the one for any kind.
TEST(OpRegistry, EveryOpResolvesFromEachOfItsAliases) {
  const OpAlias kinds[] = {OpAlias::kNcclApi, OpAlias::kNcclTests, OpAlias::kKernel, OpAlias::kC10d};
  std::map<std::string_view, const Op*> owner;
  for (const Op* op : ops().ops()) {
    EXPECT_EQ(ops().resolve(op->name()), op);
    EXPECT_EQ(ops().get(op->name()), op);
    for (const OpAlias kind : kinds) {
      const std::string_view alias = alias_of(op->aliases(), kind);
      if (alias.empty()) continue;
      EXPECT_EQ(ops().resolve(kind, alias), op) << alias;
      EXPECT_EQ(ops().resolve(alias), op) << alias;
      // No alias names two ops, whatever its kind.
      const auto [it, fresh] = owner.emplace(alias, op);
      EXPECT_TRUE(fresh || it->second == op) << alias << " names " << it->second->name() << " and " << op->name();
    }
  }
  EXPECT_EQ(ops().resolve(""), nullptr);
  EXPECT_EQ(ops().resolve(OpAlias::kNcclApi, ""), nullptr);  // ops without an NCCL call are not found by ""
  EXPECT_EQ(ops().resolve("AllToAll"), nullptr);
}

TEST(OpRegistry, AliasesAreTheNamesNcclNcclTestsAndProfilersUse) {
  EXPECT_EQ(ops().resolve(OpAlias::kNcclApi, "ncclAllReduce")->name(), "all_reduce");
  EXPECT_EQ(ops().resolve(OpAlias::kNcclApi, "ncclAlltoAll")->name(), "alltoall");
  EXPECT_EQ(ops().resolve(OpAlias::kNcclTests, "reduce_scatter_perf")->name(), "reduce_scatter");
  EXPECT_EQ(ops().resolve(OpAlias::kNcclTests, "sendrecv_perf")->name(), "sendrecv");
  EXPECT_EQ(ops().resolve(OpAlias::kKernel, "ReduceScatter")->name(), "reduce_scatter");
  EXPECT_EQ(ops().resolve(OpAlias::kC10d, "allgather")->name(), "all_gather");
  // A kind asks for that kind only: all_reduce_perf is no NCCL call, ncclAllReduce no binary.
  EXPECT_EQ(ops().resolve(OpAlias::kNcclApi, "all_reduce_perf"), nullptr);
  EXPECT_EQ(ops().resolve(OpAlias::kNcclTests, "ncclAllReduce"), nullptr);
  EXPECT_EQ(ops().resolve(OpAlias::kNcclTests, "pair_perf"), nullptr);  // pipebench's own op
  // Every op but the transfer has an nccl-tests binary (nccl-tests src/Makefile BIN_FILES_LIST).
  for (const Op* op : ops().ops()) EXPECT_EQ(op->aliases().nccl_tests.empty(), op->traits().is_transfer) << op->name();
}

TEST(OpRegistry, C10dNamesResolveByTheLongestAliasTheyStartWith) {
  EXPECT_EQ(ops().resolve_c10d("reducescatterbase")->name(), "reduce_scatter");  // not reduce
  EXPECT_EQ(ops().resolve_c10d("reduce")->name(), "reduce");
  EXPECT_EQ(ops().resolve_c10d("allgatherintotensorcoalesced")->name(), "all_gather");
  EXPECT_EQ(ops().resolve_c10d("gatherv")->name(), "gather");
  EXPECT_EQ(ops().resolve_c10d("send"), nullptr);
  EXPECT_EQ(ops().resolve_c10d("barrier"), nullptr);
  EXPECT_EQ(ops().resolve_c10d(""), nullptr);
}

// bench --plan times a plan's send/recv with this op; a second one would make the choice ambiguous.
TEST(OpRegistry, ExactlyOneOpIsATransfer) {
  std::vector<std::string> transfers;
  for (const Op* op : ops().ops()) {
    if (op->traits().is_transfer) transfers.emplace_back(op->name());
  }
  EXPECT_EQ(transfers, std::vector<std::string>{"pair"});
  EXPECT_EQ(ops().transfer_op().name(), "pair");
  EXPECT_TRUE(ops().traits("pair").is_transfer);
  // sendrecv's ring shift is a collective of the whole group; names from files may be no op at all.
  for (const char* name : {"sendrecv", "all_reduce", "send", "alltoallv", ""})
    EXPECT_FALSE(ops().traits(name).is_transfer);
}

// Megatron's collectives work on one buffer (grad buffers, main_grad, get_batch's tensors, TP outputs);
// MoE's dispatch and CP's ring move between tensors; P2P is never a collective in place.
TEST(OpRegistry, MegatronIssuesInPlaceAllButAllToAllAndTheRing) {
  for (const char* op : {"all_reduce", "all_gather", "reduce_scatter", "broadcast"}) {
    EXPECT_TRUE(ops().traits(op).megatron_in_place) << op;
    EXPECT_TRUE(ops().find("--op", op).traits().supports_in_place) << op;  // what Megatron does, bench can time
  }
  for (const char* op : {"alltoall", "sendrecv", "send", "recv", "pair", "unknown"}) {
    EXPECT_FALSE(ops().traits(op).megatron_in_place) << op;
  }
}

// NCCL's count of all_gather and reduce_scatter is one rank's part: the ops whose output and input
// differ by the group size (Sizing: size_bytes is the whole, the count one rank's).
TEST(OpRegistry, NcclCountIsOneRanksPartForAllGatherAndReduceScatter) {
  std::set<std::string> part;
  for (const Op* op : ops().ops()) {
    if (op->traits().nccl_count_is_rank_part) part.emplace(op->name());
  }
  EXPECT_EQ(part, (std::set<std::string>{"all_gather", "reduce_scatter"}));
  for (const auto& name : part) {
    const Sizing s = ops().find("--op", name).sizing(4096, 4, 4, {});
    EXPECT_EQ(s.count * 4 * 4, s.size_bytes) << name;
  }
}

// Only all_reduce passes the NVLink line rate (NVLS reduces it in NVSwitch); a record's unknown op does not.
TEST(OpRegistry, NvSwitchReducesAllReduceOnly) {
  for (const Op* op : ops().ops()) EXPECT_EQ(op->traits().nvswitch_reduces, op->name() == "all_reduce") << op->name();
  EXPECT_TRUE(ops().traits("all_reduce").nvswitch_reduces);
  EXPECT_FALSE(ops().traits("alltoallv").nvswitch_reduces);
}

// The collectives a Megatron plan holds (bench --plan times them, replay issues them through their issue()).
TEST(OpRegistry, PlansHoldMegatronsCollectives) {
  std::set<std::string> in_plans;
  for (const Op* op : ops().ops()) {
    if (op->traits().in_plans) in_plans.emplace(op->name());
  }
  EXPECT_EQ(in_plans,
            (std::set<std::string>{"all_gather", "all_reduce", "alltoall", "broadcast", "reduce_scatter", "sendrecv"}));
}

// bench --plan and replay make a plan's call alike: a sum where the op reduces, in place where Megatron's is.
TEST(OpRegistry, PlanCallSumsAndPlacesAsMegatron) {
  const PlanCall all_reduce = plan_call(ops().find("--op", "all_reduce"));
  EXPECT_EQ(all_reduce.redop, RedOp::kSum);
  EXPECT_TRUE(all_reduce.in_place);
  const PlanCall alltoall = plan_call(ops().find("--op", "alltoall"));
  EXPECT_EQ(alltoall.redop, RedOp::kNone);
  EXPECT_FALSE(alltoall.in_place);
  EXPECT_TRUE(plan_call(ops().find("--op", "broadcast")).in_place);
  EXPECT_EQ(plan_call(ops().find("--op", "broadcast")).redop, RedOp::kNone);
}

}  // namespace
}  // namespace pipebench
