// SPDX-License-Identifier: Apache-2.0
// Deadlock check: an untimed play of the programs, woken rank by rank.
#include "schedule/deadlock_check.h"

#include <algorithm>
#include <deque>
#include <unordered_set>
#include <vector>

namespace pipebench {
namespace {

struct Op {
  bool send = true;
  int peer = 0;
  std::int64_t key = 0;  // ScheduleShape::transfer_tag: the same for a send and its receive
};

struct Step {
  enum class Kind : std::uint8_t { kCompute, kCall, kWait } kind = Kind::kCompute;
  bool async = false;
  int handle = -1;
  std::size_t first_op = 0, nops = 0;
};

struct Rank {
  std::vector<Step> steps;
  std::vector<Op> ops;
  std::vector<std::size_t> call_of_handle;  // handle -> index of its call in steps
  std::size_t next = 0;                     // the step it is at
  bool posted = false;                      // whether that step (a call) has posted its ops
};

class RecordingSink final : public ProgramSink {
 public:
  RecordingSink(const ScheduleShape& shape, int r, Rank& out) : shape_(shape), r_(r), out_(out) {}
  void compute(Pass /*pass*/, std::int64_t /*k*/) override { out_.steps.push_back({}); }
  void call(const Call& c) override {
    Step s;
    s.kind = Step::Kind::kCall;
    s.async = c.async;
    s.handle = c.handle;
    s.first_op = out_.ops.size();
    s.nops = static_cast<std::size_t>(c.nops);
    for (int i = 0; i < c.nops; ++i)
      out_.ops.push_back({c.ops[i].send, shape_.peer(r_, c.ops[i]), shape_.transfer_tag(r_, c.ops[i])});
    if (c.async && c.handle >= 0) {
      if (out_.call_of_handle.size() <= static_cast<std::size_t>(c.handle))
        out_.call_of_handle.resize(static_cast<std::size_t>(c.handle) + 1);
      out_.call_of_handle[static_cast<std::size_t>(c.handle)] = out_.steps.size();
    }
    out_.steps.push_back(s);
  }
  void wait(int handle) override {
    Step s;
    s.kind = Step::Kind::kWait;
    s.handle = handle;
    out_.steps.push_back(s);
  }

 private:
  const ScheduleShape& shape_;
  int r_;
  Rank& out_;
};

class Player {
 public:
  Player(const ScheduleShape& shape, std::vector<Rank>& ranks) : shape_(shape), ranks_(ranks) {}

  // Runs every rank as far as it goes, waking a rank's peers whenever it posts; returns once none can go on.
  void run() {
    std::deque<int> ready;
    for (int r = 0; r < shape_.p; ++r) ready.push_back(r);
    while (!ready.empty()) {
      const int r = ready.front();
      ready.pop_front();
      advance(r, ready);
    }
  }

  [[nodiscard]] bool met(const Op& op) const { return (op.send ? recvs_ : sends_).count(op.key) > 0; }

 private:
  bool all_met(const Rank& k, const Step& s) const {
    const auto first = k.ops.begin() + static_cast<std::ptrdiff_t>(s.first_op);
    return std::all_of(first, first + static_cast<std::ptrdiff_t>(s.nops), [this](const Op& op) { return met(op); });
  }

  void advance(int r, std::deque<int>& ready) {
    Rank& k = ranks_[static_cast<std::size_t>(r)];
    while (k.next < k.steps.size()) {
      const Step& s = k.steps[k.next];
      if (s.kind == Step::Kind::kCall && !k.posted) {
        for (std::size_t i = 0; i < s.nops; ++i) {
          const Op& op = k.ops[s.first_op + i];
          (op.send ? sends_ : recvs_).insert(op.key);
          ready.push_back(op.peer);
        }
        k.posted = true;
      }
      if (s.kind == Step::Kind::kCall && !s.async && !all_met(k, s)) return;
      if (s.kind == Step::Kind::kWait) {
        const std::size_t h = static_cast<std::size_t>(s.handle);
        if (h < k.call_of_handle.size() && !all_met(k, k.steps[k.call_of_handle[h]])) return;
      }
      ++k.next;
      k.posted = false;
    }
  }

  const ScheduleShape& shape_;
  std::vector<Rank>& ranks_;
  std::unordered_set<std::int64_t> sends_, recvs_;
};

void describe(const ScheduleShape& shape, const Op& op, Deadlock& d) {
  const std::int64_t stages = static_cast<std::int64_t>(shape.p) * shape.v;
  d.send = op.send;
  d.grad = op.key % 2 == 1;
  d.to_stage = static_cast<int>((op.key / 2) % stages);
  d.microbatch = op.key / 2 / stages;
  // A send waits for its receiver: named, so that the line does not read as the rank's own receive.
  d.waits_for = (op.send ? "rank " + std::to_string(shape.rank_of(d.to_stage)) + " to receive " : std::string()) +
                (d.grad ? "the gradient" : "the activation") + " of microbatch " + std::to_string(d.microbatch) +
                " from stage " + std::to_string(d.grad ? d.to_stage + 1 : d.to_stage - 1) + " to stage " +
                std::to_string(d.to_stage);
}

}  // namespace

std::optional<Deadlock> find_deadlock(const ScheduleShape& shape,
                                      const std::function<void(int r, ProgramSink& sink)>& emit) {
  std::vector<Rank> ranks(static_cast<std::size_t>(shape.p));
  for (int r = 0; r < shape.p; ++r) {
    RecordingSink sink(shape, r, ranks[static_cast<std::size_t>(r)]);
    emit(r, sink);
  }
  Player player(shape, ranks);
  player.run();
  for (int r = 0; r < shape.p; ++r) {
    const Rank& k = ranks[static_cast<std::size_t>(r)];
    if (k.next == k.steps.size()) continue;
    const Step* s = &k.steps[k.next];
    if (s->kind == Step::Kind::kWait) s = &k.steps[k.call_of_handle[static_cast<std::size_t>(s->handle)]];
    Deadlock d;
    d.rank = r;
    d.step = k.next;
    for (std::size_t i = 0; i < s->nops && d.waits_for.empty(); ++i) {
      const Op& op = k.ops[s->first_op + i];
      if (!player.met(op)) describe(shape, op, d);
    }
    return d;
  }
  return std::nullopt;
}

}  // namespace pipebench
