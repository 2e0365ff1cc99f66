// SPDX-License-Identifier: Apache-2.0
// Worst link class of a group.
#include "topology/link_class.h"

#include <cctype>

namespace pipebench {

std::string LinkClass::label() const { return across_hosts ? "NET" : class_label(cls, nvlinks); }

bool worse_than(const LinkClass& a, const LinkClass& b) {
  if (a.across_hosts != b.across_hosts) return a.across_hosts;
  if (a.cls != b.cls) return a.cls > b.cls;
  return a.cls == PathClass::kNvLink && a.nvlinks < b.nvlinks;
}

std::optional<LinkClass> parse_link_class(std::string_view label) {
  if (label == "NET") return LinkClass{PathClass::kSys, 0, true};
  if (label.size() > 2 && label.substr(0, 2) == "NV") {
    int links = 0;
    for (char c : label.substr(2)) {
      if (!std::isdigit(static_cast<unsigned char>(c)) || links > 1000) return std::nullopt;
      links = links * 10 + (c - '0');
    }
    return LinkClass{PathClass::kNvLink, links, false};
  }
  for (PathClass c :
       {PathClass::kSelf, PathClass::kPix, PathClass::kPxb, PathClass::kPhb, PathClass::kNode, PathClass::kSys}) {
    if (label == class_label(c, 0)) return LinkClass{c, 0, false};
  }
  return std::nullopt;
}

std::optional<LinkClass> worst_link_class(const std::vector<int>& ranks, const PairClassFn& pair_class) {
  if (ranks.size() == 1) return pair_class(ranks[0], ranks[0]);
  std::optional<LinkClass> worst;
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    for (std::size_t j = i + 1; j < ranks.size(); ++j) {
      const std::optional<LinkClass> p = pair_class(ranks[i], ranks[j]);
      if (!p) return std::nullopt;
      if (p->across_hosts) return p;  // nothing is worse
      if (!worst || worse_than(*p, *worst)) worst = p;
    }
  }
  return worst;
}

}  // namespace pipebench
