// SPDX-License-Identifier: Apache-2.0
// pair: explicit src:dst transfers (--pairs), one-way or both ways (--bidir), all in one group, so a
// listed set of links is loaded at the same time. A rank receiving several messages gets one slot each.
#include "collectives/pair.h"

#include <algorithm>
#include <string>

#include "collectives/registry.h"
#include "core/error.h"

namespace pipebench {

std::vector<RankPair> parse_pairs(std::string_view flag, std::string_view text) {
  std::vector<RankPair> out;
  const std::string s(text);
  std::size_t start = 0;
  while (start <= s.size()) {
    const std::size_t comma = s.find(',', start);
    const std::string item = s.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    const auto colon = item.find(':');
    auto bad = [&] {
      return UsageError(std::string(flag) + ": '" + item + "' is not a pair SRC:DST of rank numbers (e.g. 0:1,3:0)");
    };
    if (colon == std::string::npos || colon == 0 || colon + 1 == item.size()) throw bad();
    const std::string a = item.substr(0, colon), b = item.substr(colon + 1);
    auto digits = [](const std::string& x) {
      return !x.empty() && std::all_of(x.begin(), x.end(), [](char c) { return c >= '0' && c <= '9'; });
    };
    if (!digits(a) || !digits(b) || a.size() > 9 || b.size() > 9) throw bad();
    out.push_back({std::stoi(a), std::stoi(b)});
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

std::vector<RankPair> pair_transfers(const OpParams& p) {
  std::vector<RankPair> t;
  for (const auto& pr : p.pairs) {
    t.push_back(pr);
    if (p.bidirectional) t.push_back({pr.dst, pr.src});
  }
  return t;
}

namespace {

// Slot k of rank r's receive buffer holds the k-th transfer (in list order) whose dst is r.
std::vector<RankPair> incoming(const std::vector<RankPair>& transfers, int rank) {
  std::vector<RankPair> in;
  for (const auto& t : transfers) {
    if (t.dst == rank) in.push_back(t);
  }
  return in;
}

class Pair final : public Op {
 public:
  Pair() { traits_.is_transfer = true; }
  std::string_view name() const override { return "pair"; }
  OpAliases aliases() const override { return {}; }  // pipebench's own: no other tool names it
  Sizing sizing(std::size_t requested, std::size_t e, int, const OpParams& p) const override {
    const std::size_t c = requested / e;
    std::size_t slots = 1;
    const auto t = pair_transfers(p);
    for (const auto& x : t) slots = std::max(slots, incoming(t, x.dst).size());
    return {c, c * e, c * e, c * e * slots};
  }
  // 1: algbw and busbw are the rate of one message over its link, one direction (as sendrecv).
  double bus_bw_factor(int) const override { return 1.0; }
  DataLayout layout(const Sizing& s, int rank, int, bool, const OpParams& p) const override {
    DataLayout d;
    const auto t = pair_transfers(p);
    const bool sends = std::any_of(t.begin(), t.end(), [&](const RankPair& x) { return x.src == rank; });
    if (sends) d.fills.push_back({BufferRole::kSend, 0, s.count, rank, 0});
    const auto in = incoming(t, rank);
    for (std::size_t k = 0; k < in.size(); ++k) {
      d.checks.push_back({k * s.count, s.count, false, in[k].src, 0});
    }
    return d;
  }
  void issue(Backend& b, int local, const CallArgs& a) const override {
    const int r = b.rank_of(local);
    const auto t = pair_transfers(a.params);
    const std::size_t slot_bytes = a.sizing.count * dtype_size(a.dtype);
    std::size_t slot = 0;
    for (const auto& x : t) {
      if (x.src == r) b.send(local, a.buffers.send(local), a.sizing.count, a.dtype, x.dst);
      if (x.dst == r) {
        b.recv(local, static_cast<char*>(a.buffers.recv(local)) + slot * slot_bytes, a.sizing.count, a.dtype, x.src);
        ++slot;
      }
    }
  }
  // The group's ranks renumbered 0 and 1 (the point runs on a 2-rank communicator of them).
  OpParams transfer_params(bool forward, bool backward) const override {
    OpParams p;
    p.pairs = {forward ? RankPair{0, 1} : RankPair{1, 0}};
    p.bidirectional = forward && backward;
    return p;
  }
  std::string plan_label(const OpParams& p) const override { return p.bidirectional ? "sendrecv both" : "send"; }
  void validate(int n, const OpParams& p) const override {
    if (p.pairs.empty()) throw UsageError("--pairs: the pair op needs at least one pair, e.g. --pairs 0:1");
    for (const auto& x : p.pairs) {
      const std::string name = std::to_string(x.src) + ":" + std::to_string(x.dst);
      if (x.src >= n || x.dst >= n) {
        throw UsageError("--pairs: pair " + name + " names a rank out of range (ranks are 0.." + std::to_string(n - 1) +
                         ")");
      }
      if (x.src == x.dst) throw UsageError("--pairs: pair " + name + " sends a rank to itself");
    }
    const auto t = pair_transfers(p);
    for (std::size_t i = 0; i < t.size(); ++i) {
      for (std::size_t j = i + 1; j < t.size(); ++j) {
        if (t[i] == t[j]) {
          throw UsageError("--pairs: transfer " + std::to_string(t[i].src) + ":" + std::to_string(t[i].dst) +
                           " is listed twice" + (p.bidirectional ? " (--bidir adds every reverse)" : ""));
        }
      }
    }
  }
};

PB_REGISTER_OP(Pair);

}  // namespace
}  // namespace pipebench
