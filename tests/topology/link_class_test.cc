// SPDX-License-Identifier: Apache-2.0
// The worst link class of a group: order, NVLink counts, hosts, unknown pairs, labels.
#include "topology/link_class.h"

#include <gtest/gtest.h>

#include <map>

namespace pipebench {
namespace {

TEST(LinkClass, LabelsParseBackAndOthersAreRefused) {
  for (const char* label : {"X", "NV4", "NV18", "PIX", "PXB", "PHB", "NODE", "SYS", "NET"}) {
    const auto c = parse_link_class(label);
    ASSERT_TRUE(c.has_value()) << label;
    EXPECT_EQ(c->label(), label);
  }
  for (const char* label : {"", "NV", "NVx", "nv4", "PCI", "FOO"}) EXPECT_FALSE(parse_link_class(label)) << label;
}

TEST(LinkClass, WorstPairOfAGroup) {
  // 0-1 NV12, 1-2 NV4, 0-2 PXB, 3 on another host, 4 unknown.
  std::map<std::pair<int, int>, LinkClass> pairs = {{{0, 1}, {PathClass::kNvLink, 12, false}},
                                                    {{1, 2}, {PathClass::kNvLink, 4, false}},
                                                    {{0, 2}, {PathClass::kPxb, 0, false}}};
  const PairClassFn pair_class = [&](int a, int b) -> std::optional<LinkClass> {
    if (a == 4 || b == 4) return std::nullopt;
    if (a == b) return LinkClass{};
    if (a == 3 || b == 3) return LinkClass{PathClass::kSys, 0, true};
    const auto it = pairs.find({std::min(a, b), std::max(a, b)});
    return it == pairs.end() ? std::nullopt : std::optional<LinkClass>(it->second);
  };
  const auto label = [&](const std::vector<int>& ranks) {
    const auto c = worst_link_class(ranks, pair_class);
    return c ? c->label() : std::string("?");
  };
  EXPECT_EQ(label({0, 1}), "NV12");
  EXPECT_EQ(label({1, 0, 2}), "PXB");
  EXPECT_EQ(label({0, 1}), "NV12");
  EXPECT_EQ(label({1, 0}), "NV12");
  EXPECT_EQ(label({2, 1}), "NV4");
  EXPECT_TRUE(worse_than(*parse_link_class("NV4"), *parse_link_class("NV12")));  // fewer links is worse
  EXPECT_EQ(label({0, 3}), "NET");
  EXPECT_EQ(label({0, 4}), "?");
  EXPECT_EQ(label({0}), "X");
  EXPECT_EQ(label({4}), "?");
  EXPECT_EQ(label({}), "?");
}

}  // namespace
}  // namespace pipebench
