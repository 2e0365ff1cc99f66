// SPDX-License-Identifier: Apache-2.0
// The event loop: events in (time, sequence) order (EventQueue), so equal times run in FIFO order.
#include "sim/simulator.h"

#include <algorithm>
#include <deque>
#include <map>
#include <unordered_map>

#include "core/error.h"
#include "sim/shared_resource.h"

namespace pipebench {
namespace {

enum class EventKind : std::uint8_t { kRankReady, kOpDone, kCollectiveDone };

struct Event {
  SimTime time;
  std::int64_t chain;  // the P2P bytes on the chain of waits that ends at `time` (SimResult::iteration_chain_bytes)
  int a;               // rank / op id / collective id
  int b;               // kCollectiveDone: a shared collective's completion version (-1: shares nothing)
  EventKind kind;
};

// Events in (time, sequence) order: a 4-ary heap (half the levels of a binary one; a few hundred events are
// pending at a time), and beside it a FIFO for the events due at the time being played (a rank woken by a
// transfer's completion): those are the latest of their time and leave in the order they came, so they
// skip the heap. The order is the same as one heap's: the FIFO only ever holds events of the current time.
// The heap holds 16-byte keys (time; sequence number and the slot of the event's payload), so a node's four
// children are one cache line and sifting moves keys only; the smallest child is chosen without branches
// (the children's order is random, so a branch per compare is mispredicted half the time). Measured on
// predict of p 64, v 8, 1024 microbatches: 10 % less CPU than 40-byte events sifted with branches.
class EventQueue {
 public:
  void push(SimTime t, EventKind kind, int a, int b, std::int64_t chain) {
    const Event e{t, chain, a, b, kind};
    if (t == now_) {
      fifo_.push_back(e);
      return;
    }
    if (t < 0) throw Error("simulation: an event before time 0");  // keys compare times unsigned
    std::uint32_t slot = 0;
    if (free_.empty()) {
      if (payload_.size() > kSlotMask) throw Error("simulation: more than 2^24 events pending at once");
      slot = static_cast<std::uint32_t>(payload_.size());
      payload_.push_back(e);
    } else {
      slot = free_.back();
      free_.pop_back();
      payload_[slot] = e;
    }
    // The sequence number above the slot's bits: keys of equal time order by sequence, as pushed.
    const Key k = static_cast<Key>(static_cast<std::uint64_t>(t)) << 64 |
                  (static_cast<std::uint64_t>(seq_++) << kSlotBits | slot);
    std::size_t i = heap_.size();
    heap_.push_back(k);
    while (i > 0) {
      const std::size_t parent = (i - 1) / 4;
      if (!earlier(k, heap_[parent])) break;
      heap_[i] = heap_[parent];
      i = parent;
    }
    heap_[i] = k;
  }

  // The next event; false when none is left.
  bool pop(Event& out) {
    if (head_ < fifo_.size() && (heap_.empty() || time_of(heap_.front()) > now_)) {
      out = fifo_[head_++];
      if (head_ == fifo_.size()) {
        fifo_.clear();
        head_ = 0;
      }
    } else if (!heap_.empty()) {
      const auto slot = static_cast<std::uint32_t>(static_cast<std::uint64_t>(heap_.front()) & kSlotMask);
      out = payload_[slot];
      free_.push_back(slot);
      pop_heap();
    } else {
      return false;
    }
    now_ = out.time;
    return true;
  }

 private:
  // (time << 64 | sequence << 24 | slot): one unsigned compare orders keys, without a branch to mispredict.
  using Key = unsigned __int128;
  // 2^24 pending events (a schedule has a few per rank); the 40 bits above them number 10^12 pushes.
  static constexpr int kSlotBits = 24;
  static constexpr std::uint64_t kSlotMask = (std::uint64_t{1} << kSlotBits) - 1;

  static bool earlier(Key a, Key b) { return a < b; }
  static SimTime time_of(Key k) { return static_cast<SimTime>(k >> 64); }

  void pop_heap() {
    const Key last = heap_.back();
    heap_.pop_back();
    const std::size_t n = heap_.size();
    if (n == 0) return;
    std::size_t i = 0;
    for (;;) {
      const std::size_t first = 4 * i + 1;
      if (first >= n) break;
      std::size_t best = first;
      Key best_key = heap_[first];
      const std::size_t end = std::min(first + 4, n);
      for (std::size_t c = first + 1; c < end; ++c) {
        const Key k = heap_[c];
        const bool less = k < best_key;
        best = less ? c : best;
        best_key = less ? k : best_key;
      }
      if (!earlier(best_key, last)) break;
      heap_[i] = best_key;
      i = best;
    }
    heap_[i] = last;
  }

  std::vector<Key> heap_;
  std::vector<Event> payload_, fifo_;
  std::vector<std::uint32_t> free_;  // payload_ slots not in use
  std::size_t head_ = 0;             // fifo_'s first event not yet popped
  SimTime now_ = 0;
  std::int64_t seq_ = 0;
};

// A posted op, alive from its post until its rank's comm-busy union has taken it in (then its slot is
// reused): the simulator holds the ops in flight, not every op of the iteration.
struct PostedOp {
  int rank;
  int call;    // index of the call (task) that posted it, per rank
  int handle;  // async handle or -1
  SimTime posted;
  std::uint32_t call_first = 0;  // the call's ops: CompiledProgram::ops[call_first, call_first + call_nops)
  int call_nops = 0;
  bool done = false;
  int partner = -1;
  SimTime start = 0;              // when its transfer began (both sides posted, link free)
  SimTime end = 0;                // when it completed
  const char* label = "";         // the call's name (traces)
  std::int64_t posted_chain = 0;  // the posting rank's chain at `posted`
};

struct MatchKey {
  int src, dst;
  std::int64_t tag;
  bool operator==(const MatchKey& o) const { return src == o.src && dst == o.dst && tag == o.tag; }
};
struct MatchHash {
  std::size_t operator()(const MatchKey& k) const {
    std::uint64_t h = static_cast<std::uint64_t>(k.tag) * 0x9e3779b97f4a7c15ULL;
    h ^= (static_cast<std::uint64_t>(k.src) << 32 | static_cast<std::uint32_t>(k.dst)) + 0x7f4a7c15ULL + (h << 6) +
         (h >> 2);
    return static_cast<std::size_t>(h);
  }
};

// kRanks: every per-rank account (SimResult::ranks whole); false: the iteration, its chain and each rank's end.
template <bool kRanks>
class Sim {
 public:
  // source: the programs `tasks` were compiled from, for the trace's labels (null: no trace). events: where
  // the trace goes instead of res_.trace (null: kept, with the task starts).
  Sim(const std::vector<CompiledProgram>& tasks, const std::vector<Program>* source,
      const std::vector<SimCollective>& colls, const SimCosts& costs, const TraceEventSink* events = nullptr,
      const SimIterations& iterations = {})
      : tasks_(tasks),
        source_(source),
        colls_(colls),
        costs_(costs),
        keep_trace_(kRanks && source != nullptr),
        events_(events),
        n_(static_cast<int>(tasks.size())),
        iterations_(iterations.count),
        rule_(iterations.rule) {
    if (iterations_ < 1) throw Error("simulation: " + std::to_string(iterations_) + " iterations");
    const auto n = static_cast<std::size_t>(n_);
    const auto runs = static_cast<std::size_t>(iterations_);
    res_.ranks.resize(n);
    res_.iteration_ends.assign(runs, std::vector<SimTime>(n, 0));
    iter_.assign(n, 0);
    if (keep_trace_ && !events_) res_.task_starts.resize(n);
    for (auto* v : {&pc_, &op_pc_}) v->assign(n, 0);
    for (auto* v : {&clock_, &chain_, &covered_}) v->assign(n, 0);
    for (auto* v : {&cur_s_, &cur_e_}) v->assign(n, -1);
    last_call_left_.assign(n, 0);
    if (costs_.compute_slowdown_while_comm > 0) {
      transfers_.resize(n);
      computing_.assign(n, Computing{});
    }
    last_call_.assign(n, -1);
    waiting_.assign(n, Wait{});
    // Each iteration's collectives are their own: iteration i's copy of collective c is c + i * colls.size().
    coll_arrived_.assign(colls.size() * runs, {});
    coll_arrive_time_.assign(colls.size() * runs, 0);
    coll_arrive_chain_.assign(colls.size() * runs, 0);
    busy_.resize(n);
    posted_.resize(n);
    pending_handle_.resize(n);
    pairs_.resize(n * n);
  }

  SimResult run() {
    std::size_t ops = 0;
    std::int64_t max_tag = -1;
    for (const auto& prog : tasks_) {
      ops += prog.source_ops;
      max_tag = std::max(max_tag, prog.max_tag);
    }
    // Each iteration's transfers are their own: iteration i's tag t is t + i * tag_stride_.
    tag_stride_ = max_tag + 1;
    // Dense tags (the generators' case) match through an array; anything else through a hash map.
    if (max_tag >= 0 && max_tag < static_cast<std::int64_t>(4 * ops + 1024)) {
      dense_.assign(static_cast<std::size_t>(tag_stride_) * static_cast<std::size_t>(iterations_), -1);
    } else {
      unmatched_.reserve(ops / 2 + 16);
    }
    for (int r = 0; r < n_; ++r) push(0, EventKind::kRankReady, r, -1, 0);
    for (Event e{}; q_.pop(e);) {
      if (e.kind == EventKind::kRankReady) {
        if (e.b >= 0 && !end_slowed_compute(e.a, e.b)) continue;  // a pass's end moved later since
        advance(e.a, e.time, e.chain);
      } else if (e.kind == EventKind::kOpDone) {
        op_done(e.a, e.time, e.chain);
      } else {
        coll_done(e.a, e.time, e.b, e.chain);
      }
    }
    std::string stuck;
    for (int r = 0; r < n_; ++r) {
      if (pc_[static_cast<std::size_t>(r)] < tasks_[static_cast<std::size_t>(r)].steps.size())
        stuck += (stuck.empty() ? "" : ", ") + std::to_string(r);
    }
    if (!stuck.empty()) {
      throw Error("simulation deadlock: pipeline ranks " + stuck + " wait for transfers nobody posts (schedule bug)");
    }
    // The P2P intervals are in the union already (every op completed); collectives are merged in after them.
    for (int r = 0; r < n_; ++r) {
      const auto ri = static_cast<std::size_t>(r);
      auto& rr = res_.ranks[ri];
      if constexpr (kRanks) {
        take_in_done(r, true);
        auto& v = busy_[ri];  // collectives
        std::sort(v.begin(), v.end());
        for (const auto& [s, e] : v) add_busy(ri, std::max(s, cur_s_[ri]), e);
        if (cur_e_[ri] > cur_s_[ri]) covered_[ri] += cur_e_[ri] - cur_s_[ri];
        rr.comm_busy = covered_[ri];
      }
      rr.end = clock_[ri];
      res_.iteration_ends.back()[ri] = rr.end;
      later(res_.iteration, res_.iteration_chain_bytes, rr.end, chain_[ri]);
    }
    return std::move(res_);
  }

 private:
  // What a blocked rank waits for: a blocking P2P call, an async handle, or a collective.
  enum class WaitKind : std::uint8_t { kNone, kCall, kHandle, kCollective, kStep };
  struct Wait {
    WaitKind kind = WaitKind::kNone;
    int id = -1;
    SimTime since = 0;
  };

  void push(SimTime t, EventKind kind, int a, int b, std::int64_t chain) { q_.push(t, kind, a, b, chain); }

  // (t, chain) := the later of itself and (u, its chain); of equal times the longer chain, so the chain
  // is the right-hand derivative (a longer P2P time makes the tie go the way of the chain with more bytes).
  static void later(SimTime& t, std::int64_t& chain, SimTime u, std::int64_t u_chain) {
    if (u > t || (u == t && u_chain > chain)) {
      t = u;
      chain = u_chain;
    }
  }

  // Union of a rank's comm intervals (post to completion; async posts overlap each other), fed in
  // posting order: a rank posts in time order, so the starts arrive sorted.
  void add_busy(std::size_t r, SimTime s, SimTime e) {
    if (s > cur_e_[r]) {
      if (cur_e_[r] > cur_s_[r]) covered_[r] += cur_e_[r] - cur_s_[r];
      cur_s_[r] = s;
      cur_e_[r] = e;
    } else {
      cur_e_[r] = std::max(cur_e_[r], e);
    }
  }

  // Feeds rank r's completed ops, oldest post first, into its union and frees their slots (all of them
  // with `all`: at the end, where an op nobody matched counts as ending at 0).
  void take_in_done(int r, bool all) {
    auto& fifo = posted_[static_cast<std::size_t>(r)];
    while (!fifo.empty() && (all || ops_[static_cast<std::size_t>(fifo.front())].done)) {
      const PostedOp& o = ops_[static_cast<std::size_t>(fifo.front())];
      add_busy(static_cast<std::size_t>(r), o.posted, o.end);
      free_ops_.push_back(fifo.front());
      fifo.pop_front();
    }
  }

  int new_op(const PostedOp& op) {
    if (free_ops_.empty()) {
      ops_.push_back(op);
      return static_cast<int>(ops_.size()) - 1;
    }
    const int id = free_ops_.back();
    free_ops_.pop_back();
    ops_[static_cast<std::size_t>(id)] = op;
    return id;
  }

  // The loop reaches each task index once (a blocking task is passed before the rank waits).
  void note_start(std::size_t r, const CompiledProgram::Step& step, SimTime now) {
    std::string label = step.kind == Task::Kind::kCollective ? colls_[static_cast<std::size_t>(step.arg)].label
                                                             : (*source_)[r].tasks[pc_[r]].label();
    res_.task_starts[r].push_back({std::move(label), now});
  }

  void trace(int rank, const std::string& track, const std::string& name, SimTime s, SimTime e) {
    if (!keep_trace_) return;
    if (events_) {
      (*events_)(TraceEvent{rank, track, name, s, e});
    } else {
      res_.trace.push_back({rank, track, name, s, e});
    }
  }

  // Runs rank r from time t until it blocks or finishes.
  void advance(int r, SimTime t, std::int64_t chain) {
    const auto ri = static_cast<std::size_t>(r);
    later(clock_[ri], chain_[ri], t, chain);
    const CompiledProgram& prog = tasks_[ri];
    const auto& list = prog.steps;
    for (;;) {
      if (pc_[ri] == list.size() && !next_iteration(r)) return;
      const CompiledProgram::Step& task = list[pc_[ri]];
      const SimTime now = clock_[ri];
      if (keep_trace_ && !events_) note_start(ri, task, now);
      switch (task.kind) {
        case Task::Kind::kCompute: {
          ++pc_[ri];
          SimTime d = prog.durations[static_cast<std::size_t>(task.arg)];
          if (!computing_.empty()) {
            start_slowed_compute(ri, now, d);
            return;
          }
          if constexpr (kRanks) res_.ranks[ri].compute += d;
          if (keep_trace_) trace(r, "compute", (*source_)[ri].tasks[pc_[ri] - 1].label(), now, now + d);
          push(now + d, EventKind::kRankReady, r, -1, chain_[ri]);
          clock_[ri] = now + d;
          prefetch_next(ri);
          return;
        }
        case Task::Kind::kP2P: {
          // Calls are numbered across iterations: an op of an earlier one still in flight is not this call's.
          const int call = static_cast<int>(pc_[ri] + static_cast<std::size_t>(iter_[ri]) * list.size());
          const char* label = keep_trace_ ? (*source_)[ri].tasks[pc_[ri]].name : "";
          ++pc_[ri];
          const std::size_t first = op_pc_[ri];
          op_pc_[ri] += task.nops;
          for (std::size_t i = first; i < first + task.nops; ++i) {
            post(r, {call, task.arg, static_cast<std::uint32_t>(first), task.nops}, prog.ops[i],
                 prog.bytes(prog.ops[i]), now, label);
          }
          if (task.blocking) {
            if (call_pending(r, call)) {
              waiting_[ri] = {WaitKind::kCall, call, now};
              prefetch_next(ri);
              return;
            }
          }
          break;
        }
        case Task::Kind::kWait: {
          ++pc_[ri];
          if (handle_pending(r, task.arg)) {
            waiting_[ri] = {WaitKind::kHandle, task.arg, now};
            prefetch_next(ri);
            return;
          }
          break;
        }
        case Task::Kind::kCollective: {
          ++pc_[ri];
          const int id = task.arg + iter_[ri] * static_cast<int>(colls_.size());  // this iteration's
          const auto c = static_cast<std::size_t>(id);
          const SimCollective& coll = colls_[static_cast<std::size_t>(task.arg)];
          if (coll.step_check && rule_ == StepRule::kPostValidation) break;
          coll_arrived_[c].push_back(r);
          later(coll_arrive_time_[c], coll_arrive_chain_[c], now, chain_[ri]);
          waiting_[ri] = {WaitKind::kCollective, id, now};
          if (coll_arrived_[c].size() == coll.members.size()) {
            const SimTime start = coll_arrive_time_[c];
            if (coll.share_key >= 0) {  // its end depends on who else runs: kept at its completion
              for (const auto& x : shared_.start(coll.share_key, coll.share_capacity, id, start, coll.duration))
                push_shared(x);
              return;
            }
            push(start + coll.duration, EventKind::kCollectiveDone, id, -1, coll_arrive_chain_[c]);
            for (int m : coll.members) {
              if constexpr (kRanks) {
                busy_[static_cast<std::size_t>(m)].emplace_back(clock_[static_cast<std::size_t>(m)],
                                                                start + coll.duration);
              }
              trace(m, "collectives", coll.label, start, start + coll.duration);
            }
          }
          return;
        }
      }
    }
  }

  // Rank r has played its program: true when it goes on at once with its next iteration (post-validation); false
  // when it is done, or waits at the step that ends the iteration (synchronous: the last rank to reach it
  // wakes every rank).
  bool next_iteration(int r) {
    const auto ri = static_cast<std::size_t>(r);
    if (iter_[ri] + 1 >= iterations_) return false;
    res_.iteration_ends[static_cast<std::size_t>(iter_[ri])][ri] = clock_[ri];
    ++iter_[ri];
    pc_[ri] = 0;
    op_pc_[ri] = 0;
    if (rule_ == StepRule::kPostValidation) return true;
    later(step_time_, step_chain_, clock_[ri], chain_[ri]);
    waiting_[ri] = {WaitKind::kStep, iter_[ri], clock_[ri]};
    if (++step_arrived_ < n_) return false;
    step_arrived_ = 0;
    for (std::size_t m = 0; m < static_cast<std::size_t>(n_); ++m) wake(m, step_time_, step_time_, step_chain_);
    return false;
  }

  // A rank that stops waits while the other ranks run: its next step and ops are fetched meanwhile (64
  // ranks' programs are 64 streams no hardware prefetcher follows; without this, most steps miss the cache).
  void prefetch_next(std::size_t ri) const {
    const CompiledProgram& prog = tasks_[ri];
    const auto fetch = [](const auto& v, std::size_t i) {
      if (i < v.size()) __builtin_prefetch(v.data() + i);
    };
    // This cache line and the next: the rank's next few runs read them.
    fetch(prog.steps, pc_[ri]);
    fetch(prog.steps, pc_[ri] + 8);
    for (std::size_t k = 0; k < 4; ++k) fetch(prog.ops, op_pc_[ri] + k * 3);
  }

  // The P2P call a posted op belongs to: its task index, handle and ops.
  struct CallRef {
    int call, handle;
    std::uint32_t first_op;
    int nops;
  };

  void post(int r, const CallRef& ref, const CompiledProgram::Op& op, std::int64_t bytes, SimTime now,
            const char* label) {
    const int call = ref.call, handle = ref.handle;
    const bool send = op.send();
    const int src = send ? r : op.peer, dst = send ? op.peer : r;
    const std::int64_t tag = op.tag + iter_[static_cast<std::size_t>(r)] * tag_stride_;
    const MatchKey key{src, dst, tag};
    PostedOp posted{r, call, handle, now, ref.first_op, ref.nops};
    posted.posted_chain = chain_[static_cast<std::size_t>(r)];
    posted.label = label;
    const int id = new_op(posted);
    if constexpr (kRanks) posted_[static_cast<std::size_t>(r)].push_back(id);
    const auto ri = static_cast<std::size_t>(r);
    if (last_call_[ri] != call) {
      last_call_[ri] = call;
      last_call_left_[ri] = 0;
    }
    ++last_call_left_[ri];
    if (handle >= 0) {
      auto& handles = pending_handle_[ri];
      if (static_cast<std::size_t>(handle) >= handles.size()) handles.resize(static_cast<std::size_t>(handle) + 1, 0);
      ++handles[static_cast<std::size_t>(handle)];
    }
    if constexpr (kRanks) {
      auto& rr = res_.ranks[static_cast<std::size_t>(r)];
      if (send) {
        rr.p2p_bytes_out += bytes;
        ++rr.p2p_messages_out;
      } else {
        ++rr.p2p_messages_in;
      }
    }
    int other = -1;
    if (!dense_.empty()) {
      int& slot = dense_[static_cast<std::size_t>(tag)];
      if (slot < 0) {
        slot = id;
        return;
      }
      other = slot;
      slot = -1;
    } else {
      auto it = unmatched_.find(key);
      if (it == unmatched_.end()) {
        unmatched_[key] = id;
        return;
      }
      other = it->second;
      unmatched_.erase(it);
    }
    // Rendezvous: the transfer starts once both sides have posted it and its link is free.
    PairInfo& pair = pair_info(src, dst);
    const int* links = &link_slots_[static_cast<std::size_t>(pair.first_link)];
    SimTime start = ops_[static_cast<std::size_t>(other)].posted;
    std::int64_t chain = ops_[static_cast<std::size_t>(other)].posted_chain;
    later(start, chain, now, chain_[ri]);
    for (int i = 0; i < pair.nlinks; ++i) {
      const auto l = static_cast<std::size_t>(links[i]);
      later(start, chain, link_free_[l], link_chain_[l]);
    }
    SimTime duration =
        costs_.p2p_batch ? batch_duration(src, dst, bytes, ops_[static_cast<std::size_t>(send ? id : other)]) : -1;
    if (duration < 0) {
      // A pipeline sends one activation size over and over: the pair's last size and time are kept.
      if (pair.bytes != bytes) {
        pair.time = costs_.p2p(src, dst, bytes);
        pair.bytes = bytes;
      }
      duration = pair.time;
    }
    const SimTime end = start + duration;
    chain += bytes;
    for (int i = 0; i < pair.nlinks; ++i) {
      link_free_[static_cast<std::size_t>(links[i])] = end;
      link_chain_[static_cast<std::size_t>(links[i])] = chain;
    }
    ops_[static_cast<std::size_t>(id)].partner = other;
    ops_[static_cast<std::size_t>(other)].partner = id;
    ops_[static_cast<std::size_t>(id)].start = start;
    ops_[static_cast<std::size_t>(other)].start = start;
    ops_[static_cast<std::size_t>(id)].end = end;
    ops_[static_cast<std::size_t>(other)].end = end;
    if (!computing_.empty()) {
      for (const int x : {src, dst}) note_transfer(static_cast<std::size_t>(x), now, start, end);
    }
    if (keep_trace_) {
      const auto label_of = [this](int op) { return std::string(ops_[static_cast<std::size_t>(op)].label); };
      trace(src, "send", label_of(src == r ? id : other) + " -> " + std::to_string(dst), start, end);
      trace(dst, "recv", label_of(dst == r ? id : other) + " <- " + std::to_string(src), start, end);
    }
    push(end, EventKind::kOpDone, id, -1, chain);
  }

  // The time of a transfer as part of the sender's call: the batch it goes out in (the cost model's
  // callback takes the call's ops as the plan wrote them).
  SimTime batch_duration(int src, int dst, std::int64_t bytes, const PostedOp& sender) {
    const CompiledProgram& prog = tasks_[static_cast<std::size_t>(sender.rank)];
    batch_ops_.clear();
    for (int i = 0; i < sender.call_nops; ++i)
      batch_ops_.push_back(prog.source_op(prog.ops[sender.call_first + static_cast<std::uint32_t>(i)]));
    return costs_.p2p_batch(src, dst, bytes, batch_ops_.data(), sender.call_nops, sender.rank);
  }

  // A directed pair's links (as dense slots of link_free_) and its last P2P cost, from the cost callbacks
  // on first use: the callbacks are functions of (src, dst[, bytes]), so one call per pair (and size)
  // replaces one per transfer, and no transfer allocates.
  struct PairInfo {
    bool ready = false;
    int first_link = 0, nlinks = 0;  // link_slots_[first_link, first_link + nlinks)
    std::int64_t bytes = -1;         // the size `time` was computed for
    SimTime time = 0;
  };

  PairInfo& pair_info(int src, int dst) {
    PairInfo& pair =
        pairs_[static_cast<std::size_t>(src) * static_cast<std::size_t>(n_) + static_cast<std::size_t>(dst)];
    if (pair.ready) return pair;
    std::vector<int> ids;
    if (costs_.links) {
      ids = costs_.links(src, dst);
    } else {
      ids.push_back(costs_.link ? costs_.link(src, dst) : src * 1000003 + dst);
    }
    pair.first_link = static_cast<int>(link_slots_.size());
    pair.nlinks = static_cast<int>(ids.size());
    for (int id : ids) {
      const auto [it, added] = link_slot_.try_emplace(id, static_cast<int>(link_free_.size()));
      if (added) {
        link_free_.push_back(0);
        link_chain_.push_back(0);
      }
      link_slots_.push_back(it->second);
    }
    pair.ready = true;
    return pair;
  }

  // A rank waits on a call right after posting it, so only its latest call's count is ever asked for.
  bool call_pending(int r, int call) const {
    return last_call_[static_cast<std::size_t>(r)] == call && last_call_left_[static_cast<std::size_t>(r)] > 0;
  }
  bool handle_pending(int r, int handle) const {
    const auto& handles = pending_handle_[static_cast<std::size_t>(r)];
    return handle >= 0 && static_cast<std::size_t>(handle) < handles.size() &&
           handles[static_cast<std::size_t>(handle)] > 0;
  }

  void op_done(int id, SimTime t, std::int64_t chain) {
    const int partner = ops_[static_cast<std::size_t>(id)].partner;
    for (int x : {id, partner}) {
      auto& o = ops_[static_cast<std::size_t>(x)];
      o.done = true;
      if (last_call_[static_cast<std::size_t>(o.rank)] == o.call) --last_call_left_[static_cast<std::size_t>(o.rank)];
      if (o.handle >= 0) --pending_handle_[static_cast<std::size_t>(o.rank)][static_cast<std::size_t>(o.handle)];
      const auto ri = static_cast<std::size_t>(o.rank);
      const Wait& w = waiting_[ri];
      const bool wakes = (w.kind == WaitKind::kCall && w.id == o.call && !call_pending(o.rank, o.call)) ||
                         (w.kind == WaitKind::kHandle && w.id == o.handle && !handle_pending(o.rank, o.handle));
      if (wakes) wake(ri, std::min(o.start, t), t, chain);
    }
    if constexpr (kRanks) {
      const int rank_a = ops_[static_cast<std::size_t>(id)].rank, rank_b = ops_[static_cast<std::size_t>(partner)].rank;
      take_in_done(rank_a, false);
      if (rank_b != rank_a) take_in_done(rank_b, false);
    } else {  // no union to feed: both slots are free at once
      free_ops_.push_back(id);
      free_ops_.push_back(partner);
    }
  }

  // A shared collective's completion: its chain is its own start's (the others on the resource, which
  // move its end, are not followed: the chain serves a search that checks every step it takes).
  void push_shared(const SharedResources::Completion& x) {
    push(x.at, EventKind::kCollectiveDone, x.collective, x.version,
         coll_arrive_chain_[static_cast<std::size_t>(x.collective)]);
  }

  // version: a shared collective's completion (-1: one that shares nothing, always current).
  void coll_done(int c, SimTime t, int version, std::int64_t chain) {
    const auto& coll = colls_[static_cast<std::size_t>(c) % colls_.size()];
    SimTime start = t - coll.duration;
    if (version >= 0) {
      std::vector<SharedResources::Completion> next;
      if (!shared_.finish(c, version, t, next)) return;  // replaced by a later start or end
      for (const auto& x : next) push_shared(x);
      start = coll_arrive_time_[static_cast<std::size_t>(c)];
      for (int m : coll.members) {
        if constexpr (kRanks) busy_[static_cast<std::size_t>(m)].emplace_back(clock_[static_cast<std::size_t>(m)], t);
        trace(m, "collectives", coll.label, start, t);
      }
    }
    for (int m : coll.members) wake(static_cast<std::size_t>(m), start, t, chain);
  }

  // --comm-sm-slowdown F: a pass progresses at 1 / (1 + F) of its speed while a transfer of its rank runs
  // (from the transfer's start to its end, its NCCL kernel moving data: what bench --plan's pass costs time
  // beside the GEMMs), at full speed otherwise. A receive still waiting for its sender moves nothing and slows
  // nothing. A transfer matched while the pass runs moves the pass's end (a new end event; the old one is
  // stale), so the end is known only when the pass ends: its account and trace are written then.
  [[nodiscard]] SimTime slowed_end(std::size_t r, SimTime from, SimTime work) {
    auto& v = transfers_[r];
    std::sort(v.begin(), v.end());
    const double f = 1 + costs_.compute_slowdown_while_comm;
    double t = static_cast<double>(from), left = static_cast<double>(work);
    for (std::size_t i = 0; i < v.size();) {
      SimTime a = v[i].first, b = v[i].second;  // the union of the overlapping transfers from v[i] on
      for (++i; i < v.size() && v[i].first <= b; ++i) b = std::max(b, v[i].second);
      if (static_cast<double>(b) <= t) continue;
      if (static_cast<double>(a) > t) {
        if (left <= static_cast<double>(a) - t) break;
        left -= static_cast<double>(a) - t;
        t = static_cast<double>(a);
      }
      const double span = static_cast<double>(b) - t;
      if (left * f <= span) return static_cast<SimTime>(std::llround(t + left * f));
      left -= span / f;
      t = static_cast<double>(b);
    }
    return static_cast<SimTime>(std::llround(t + left));
  }

  void start_slowed_compute(std::size_t ri, SimTime now, SimTime work) {
    auto& v = transfers_[ri];
    v.erase(std::remove_if(v.begin(), v.end(), [now](const auto& x) { return x.second <= now; }), v.end());
    Computing& c = computing_[ri];
    c.start = now;
    c.work = work;
    c.step = pc_[ri] - 1;
    c.chain = chain_[ri];
    c.end = slowed_end(ri, now, work);
    clock_[ri] = c.end;
    push(c.end, EventKind::kRankReady, static_cast<int>(ri), ++c.version, c.chain);
  }

  // Rank r's transfer [start, end), matched at `now`: kept for its passes; the pass it computes ends later
  // where the transfer begins before that pass's end.
  void note_transfer(std::size_t r, SimTime now, SimTime start, SimTime end) {
    if (end <= start) return;
    auto& v = transfers_[r];
    Computing& c = computing_[r];
    const SimTime keep_from = c.end >= 0 ? c.start : now;
    v.erase(std::remove_if(v.begin(), v.end(), [keep_from](const auto& x) { return x.second <= keep_from; }), v.end());
    v.emplace_back(start, end);
    if (c.end < 0 || start >= c.end) return;
    const SimTime moved = slowed_end(r, c.start, c.work);
    if (moved == c.end) return;
    c.end = moved;
    clock_[r] = moved;
    push(moved, EventKind::kRankReady, static_cast<int>(r), ++c.version, c.chain);
  }

  // The end event `version` of rank r's pass: false where a later end replaced it. Else the pass ends
  // now: its account and trace.
  bool end_slowed_compute(int r, int version) {
    const auto ri = static_cast<std::size_t>(r);
    Computing& c = computing_[ri];
    if (version != c.version || c.end < 0) return false;
    if constexpr (kRanks) res_.ranks[ri].compute += c.end - c.start;
    if (keep_trace_) trace(r, "compute", (*source_)[ri].tasks[c.step].label(), c.start, c.end);
    c.end = -1;
    return true;
  }

  // Rank ri, blocked since waiting_[ri].since, goes on at t: its blocked time splits into waiting for the
  // others (a dependency, until `ready`: its peer's post, the collective's last arrival) and the transfer or
  // collective itself (exposed).
  void wake(std::size_t ri, SimTime ready, SimTime t, std::int64_t chain) {
    if constexpr (kRanks) {
      const SimTime from = std::max(waiting_[ri].since, ready);
      res_.ranks[ri].blocked += t - from;
      res_.ranks[ri].waiting += from - waiting_[ri].since;
    }
    waiting_[ri] = {};
    push(t, EventKind::kRankReady, static_cast<int>(ri), -1, chain);
  }

  const std::vector<CompiledProgram>& tasks_;
  const std::vector<Program>* source_;
  const std::vector<SimCollective>& colls_;
  SharedResources shared_;
  const SimCosts& costs_;
  bool keep_trace_;
  const TraceEventSink* events_;
  int n_;
  int iterations_;
  StepRule rule_;
  std::vector<int> iter_;        // per rank: the iteration it plays
  std::int64_t tag_stride_ = 0;  // a tag's offset from one iteration to the next
  int step_arrived_ = 0;         // kSynchronous: ranks waiting at the step that ends the current iteration
  SimTime step_time_ = 0;        // ... and when the last of them arrived
  std::int64_t step_chain_ = 0;
  SimResult res_;
  std::vector<std::size_t> pc_, op_pc_;  // per rank: its next step and the first op of its next call
  std::vector<SimTime> clock_;
  std::vector<std::int64_t> chain_;  // per rank: the P2P bytes on the chain that ends at its clock
  std::vector<Wait> waiting_;
  std::vector<std::vector<int>> coll_arrived_;
  std::vector<SimTime> coll_arrive_time_;
  std::vector<std::int64_t> coll_arrive_chain_;
  std::vector<std::vector<std::pair<SimTime, SimTime>>> busy_;
  std::vector<PostedOp> ops_;  // slots of the ops in flight (free_ops_: reusable)
  std::vector<int> free_ops_;
  std::vector<std::deque<int>> posted_;           // per rank: its ops not yet in its union, oldest first
  std::vector<SimTime> cur_s_, cur_e_, covered_;  // per rank: the union's open interval and its closed sum
  std::unordered_map<MatchKey, int, MatchHash> unmatched_;
  std::vector<int> dense_;  // tag -> posted op waiting for its partner (-1: none), where the tags are dense
  // --comm-sm-slowdown (both empty without it): per rank, the transfers it takes part in that have not ended
  // before its pass (or, between passes, before now), and the pass it computes.
  struct Computing {
    SimTime start = 0, work = 0, end = -1;  // work: the pass at full speed; end -1: no pass running
    int version = 0;                        // of the pass's end event; a later end makes the earlier stale
    std::size_t step = 0;                   // its task (labels)
    std::int64_t chain = 0;
  };
  std::vector<std::vector<std::pair<SimTime, SimTime>>> transfers_;
  std::vector<Computing> computing_;
  std::vector<int> last_call_, last_call_left_;   // per rank: its latest P2P call and that call's ops not done
  std::vector<std::vector<int>> pending_handle_;  // per rank, by async handle: ops not done
  std::vector<PairInfo> pairs_;                   // src * n + dst
  std::vector<int> link_slots_;                   // the pairs' links, as indices into link_free_
  std::unordered_map<int, int> link_slot_;        // link id -> index into link_free_
  std::vector<SimTime> link_free_;                // when each link is free again
  std::vector<std::int64_t> link_chain_;          // the chain of the transfer that frees it
  EventQueue q_;
  std::vector<P2POp> batch_ops_;  // batch_duration's scratch
};

}  // namespace

SimResult simulate(const std::vector<Program>& tasks, const std::vector<SimCollective>& collectives,
                   const SimCosts& costs, bool keep_trace, const TraceEventSink* events,
                   const SimIterations& iterations) {
  std::vector<CompiledProgram> compiled;
  compiled.reserve(tasks.size());
  for (const Program& p : tasks) compiled.push_back(compile_program(p));
  return Sim<true>(compiled, keep_trace ? &tasks : nullptr, collectives, costs, events, iterations).run();
}

SimResult simulate(const std::vector<CompiledProgram>& programs, const std::vector<SimCollective>& collectives,
                   const SimCosts& costs, SimDetail detail, const SimIterations& iterations) {
  if (detail == SimDetail::kIterationOnly)
    return Sim<false>(programs, nullptr, collectives, costs, nullptr, iterations).run();
  return Sim<true>(programs, nullptr, collectives, costs, nullptr, iterations).run();
}

SimTime steady_iteration(const SimResult& run) {
  const auto& ends = run.iteration_ends;
  if (ends.empty() || ends.back().empty()) return run.iteration;
  const auto last =
      static_cast<std::size_t>(std::max_element(ends.back().begin(), ends.back().end()) - ends.back().begin());
  if (ends.size() == 1) return ends.back()[last];
  return ends.back()[last] - ends[ends.size() - 2][last];
}

}  // namespace pipebench
