// SPDX-License-Identifier: Apache-2.0
// Ranks placed on hosts and GPUs, and the class of a pair of ranks.
#include "topology/placement.h"

#include <gtest/gtest.h>

namespace pipebench {
namespace {

const LinkClass kNv4{PathClass::kNvLink, 4, false};

// Every pair of two GPUs is NV4, of 20 GB/s, crossing one link named after the pair.
std::optional<GpuLink> nv4(int ga, int gb) {
  if (ga == gb) return std::nullopt;
  return GpuLink{kNv4, {std::to_string(ga) + "-" + std::to_string(gb)}, 20};
}

Placement linked(Placement p) {
  p.link_gpus(nv4);
  return p;
}

TEST(Placement, RanksOfTheTopologysHostArePlacedOnItsGpusByBusId) {
  const Placement p({{0, "a", "0000:3b:00.0"}, {1, "a", "0000:18:00.0"}, {2, "b", "0000:18:00.0"}, {3, "a", ""}}, "a",
                    {{"0000:18:00.0", 0}, {"0000:3b:00.0", 1}});
  EXPECT_EQ(p.gpu_of_rank(), (std::map<int, int>{{0, 1}, {1, 0}}));
  EXPECT_FALSE(p.gpu_of(2).has_value());  // same bus id, another host
  EXPECT_FALSE(p.gpu_of(3).has_value());  // a host rank
  EXPECT_FALSE(p.gpu_of(7).has_value());  // not in the file
}

TEST(Placement, PairsAcrossHostsAreNetAndPairsOfOneHostTakeTheirGpusClass) {
  const Placement p = linked(Placement({{0, "a", "0000:18:00.0"}, {1, "a", "0000:3b:00.0"}, {2, "b", "0000:18:00.0"}},
                                       "a", {{"0000:18:00.0", 0}, {"0000:3b:00.0", 1}}));
  EXPECT_EQ(p.pair_class(0, 1)->label(), "NV4");
  EXPECT_EQ(p.pair_class(1, 2)->label(), "NET");
  EXPECT_EQ(p.pair_class(0, 0)->label(), "X");
  EXPECT_FALSE(p.pair_class(2, 2).has_value());  // b's GPUs are not known
  EXPECT_FALSE(p.pair_class(0, 5).has_value());  // rank 5 is not placed
  EXPECT_TRUE(p.across_hosts(0, 2));
  EXPECT_FALSE(p.across_hosts(0, 5));
  EXPECT_EQ(p.class_of({0, 1}), parse_link_class("NV4"));
  EXPECT_EQ(p.class_of({0, 1, 2}), parse_link_class("NET"));  // the worst pair of the group
  EXPECT_EQ(p.class_of({0, 5}), std::nullopt);
}

TEST(Placement, DevicesThatNameNoHostStandForOneHost) {
  const Placement p = linked(
      Placement({{0, "", "0000:18:00.0"}, {1, "", "0000:3b:00.0"}}, "a", {{"0000:18:00.0", 0}, {"0000:3b:00.0", 1}}));
  EXPECT_EQ(p.gpu_of_rank(), (std::map<int, int>{{0, 0}, {1, 1}}));
  EXPECT_EQ(p.pair_class(0, 1)->label(), "NV4");
}

TEST(Placement, RankPerGpuPlacesRankIOnGpuI) {
  const Placement p = linked(Placement::rank_per_gpu({0, 1, 2}));
  EXPECT_EQ(p.gpu_of_rank(), (std::map<int, int>{{0, 0}, {1, 1}, {2, 2}}));
  EXPECT_FALSE(p.across_hosts(0, 2));
  EXPECT_EQ(p.pair_class(0, 2)->label(), "NV4");
}

TEST(Placement, KeepsTheLinksOfTheGpusThatHoldRanksOnly) {
  Placement p = Placement::rank_per_gpu({1, 3});
  EXPECT_FALSE(p.knows_a_pair());
  std::vector<std::pair<int, int>> asked;
  p.link_gpus([&](int a, int b) {
    asked.emplace_back(a, b);
    return nv4(a, b);
  });
  EXPECT_EQ(asked, (std::vector<std::pair<int, int>>{{1, 1}, {1, 3}, {3, 1}, {3, 3}}));
  EXPECT_TRUE(p.knows_a_pair());
  ASSERT_NE(p.link(1, 3), nullptr);
  EXPECT_EQ(p.link(1, 3)->path, std::vector<std::string>{"1-3"});
  EXPECT_DOUBLE_EQ(p.link(3, 1)->path_min_gbps, 20);
  EXPECT_EQ(p.link(1, 1), nullptr);  // the link function knows no GPU with itself
  EXPECT_EQ(p.link(1, 2), nullptr);  // rank 2 is not placed
}

}  // namespace
}  // namespace pipebench
