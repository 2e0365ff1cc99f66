// SPDX-License-Identifier: Apache-2.0
// Ranks placed on hosts and GPUs, and the class of a pair of ranks.
#include "topology/placement.h"

#include <gtest/gtest.h>

namespace pipebench {
namespace {

const LinkClass kNv4{PathClass::kNvLink, 4, false};

std::optional<LinkClass> nv4(int ga, int gb) { return ga != gb ? std::optional<LinkClass>(kNv4) : std::nullopt; }

TEST(Placement, RanksOfTheTopologysHostArePlacedOnItsGpusByBusId) {
  const Placement p({{0, "a", "0000:3b:00.0"}, {1, "a", "0000:18:00.0"}, {2, "b", "0000:18:00.0"}, {3, "a", ""}}, "a",
                    {{"0000:18:00.0", 0}, {"0000:3b:00.0", 1}});
  EXPECT_EQ(p.gpu_of_rank(), (std::map<int, int>{{0, 1}, {1, 0}}));
  EXPECT_FALSE(p.gpu_of(2).has_value());  // same bus id, another host
  EXPECT_FALSE(p.gpu_of(3).has_value());  // a host rank
  EXPECT_FALSE(p.gpu_of(7).has_value());  // not in the file
}

TEST(Placement, PairsAcrossHostsAreNetAndPairsOfOneHostTakeTheirGpusClass) {
  const Placement p({{0, "a", "0000:18:00.0"}, {1, "a", "0000:3b:00.0"}, {2, "b", "0000:18:00.0"}}, "a",
                    {{"0000:18:00.0", 0}, {"0000:3b:00.0", 1}});
  EXPECT_EQ(p.pair_class(0, 1, nv4)->label(), "NV4");
  EXPECT_EQ(p.pair_class(1, 2, nv4)->label(), "NET");
  EXPECT_EQ(p.pair_class(0, 0, nv4)->label(), "X");
  EXPECT_FALSE(p.pair_class(2, 2, nv4).has_value());  // b's GPUs are not known
  EXPECT_FALSE(p.pair_class(0, 5, nv4).has_value());  // rank 5 is not placed
  EXPECT_TRUE(p.across_hosts(0, 2));
  EXPECT_FALSE(p.across_hosts(0, 5));
}

TEST(Placement, DevicesThatNameNoHostStandForOneHost) {
  const Placement p({{0, "", "0000:18:00.0"}, {1, "", "0000:3b:00.0"}}, "a",
                    {{"0000:18:00.0", 0}, {"0000:3b:00.0", 1}});
  EXPECT_EQ(p.gpu_of_rank(), (std::map<int, int>{{0, 0}, {1, 1}}));
  EXPECT_EQ(p.pair_class(0, 1, nv4)->label(), "NV4");
}

TEST(Placement, RankPerGpuPlacesRankIOnGpuI) {
  const Placement p = Placement::rank_per_gpu({0, 1, 2});
  EXPECT_EQ(p.gpu_of_rank(), (std::map<int, int>{{0, 0}, {1, 1}, {2, 2}}));
  EXPECT_FALSE(p.across_hosts(0, 2));
  EXPECT_EQ(p.pair_class(0, 2, nv4)->label(), "NV4");
}

}  // namespace
}  // namespace pipebench
