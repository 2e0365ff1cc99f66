// SPDX-License-Identifier: Apache-2.0
// Schedule files: checks against the plan, the generator, the deadlock check.
#include "schedule/schedule_file.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <memory>
#include <set>
#include <system_error>
#include <tuple>
#include <utility>
#include <vector>

#include "core/error.h"
#include "core/file_io.h"
#include "core/terminal_text.h"
#include "schedule/action_csv.h"
#include "schedule/deadlock_check.h"
#include "schedule/program_writer.h"
#include "schedule/schedule_registry.h"

namespace pipebench {
namespace {

constexpr std::string_view kPrefix = "file:";

bool forward(const ScheduleAction& a) { return a.type == ActionType::kForward; }
bool takes_input(const ScheduleAction& a) { return a.type != ActionType::kBackwardWeight; }  // compute actions

// Each rank's compute actions in order, Megatron's calls around them (schedule_file.h).
class FileSchedule final : public ScheduleGenerator {
 public:
  FileSchedule(std::string name, std::string source, std::vector<std::vector<ScheduleAction>> rows, bool split)
      : name_(std::move(name)), source_(std::move(source)), rows_(std::move(rows)), split_(split) {}

  const char* name() const override { return name_.c_str(); }
  const char* summary() const override { return "per-rank actions from a file"; }
  bool interleaves() const override { return false; }  // not Megatron's interleaved table, whatever its v
  bool reference() const override { return true; }     // Megatron does not run it
  bool splits_backward() const override { return split_; }
  void emit(const ScheduleShape& shape, int r, ProgramSink& sink) const override { emit_rank(shape, r, sink, {}); }

  // emit, calling `at_action(i)` before the steps of the rank's i-th compute action.
  void emit_rank(const ScheduleShape& shape, int r, ProgramSink& sink,
                 const std::function<void(std::size_t)>& at_action) const {
    if (shape.v == 1) {
      emit_one_chunk(shape, r, sink, at_action);
    } else {
      emit_chunks(shape, r, sink, at_action);
    }
  }

  [[nodiscard]] const std::string& source() const { return source_; }
  [[nodiscard]] const std::vector<ScheduleAction>& row(int r) const { return rows_.at(static_cast<std::size_t>(r)); }

 private:
  // The forward virtual microbatch of an action's pass (the backward's is the same microbatch on the mirrored chunk).
  static std::int64_t step_of(const ScheduleShape& shape, const std::vector<std::int64_t>& k_of,
                              const ScheduleAction& a, bool fwd) {
    const int c = a.stage / shape.p;
    return k_of[static_cast<std::size_t>(a.microbatch * shape.v + (fwd ? c : shape.v - 1 - c))];
  }

  // One chunk per rank: 1F1B's blocking calls (schedule_file.h).
  void emit_one_chunk(const ScheduleShape& shape, int r, ProgramSink& sink,
                      const std::function<void(std::size_t)>& at_action) const {
    const std::vector<std::int64_t> k_of = shape.forward_step_of();
    const auto k = [&](const ScheduleAction& a, bool fwd) { return step_of(shape, k_of, a, fwd); };
    const auto& acts = rows_.at(static_cast<std::size_t>(r));
    ProgramWriter w(shape, r, sink);
    std::vector<bool> posted(acts.size(), false);  // its receive went out with an earlier send
    for (std::size_t i = 0; i < acts.size(); ++i) {
      if (at_action) at_action(i);
      const ScheduleAction& a = acts[i];
      if (!takes_input(a)) {
        w.compute(Pass::kWeight, k(a, false));
        continue;
      }
      const bool fwd = forward(a);
      const std::int64_t ka = k(a, fwd);
      if (!posted[i]) w.alone(false, fwd ? Pass::kForward : Pass::kBackward, ka);
      w.compute(fwd ? Pass::kForward : Pass::kBackward, ka);
      if (a.type == ActionType::kFullBackward && split_) w.compute(Pass::kWeight, ka);
      std::size_t j = i + 1;
      while (j < acts.size() && !takes_input(acts[j])) ++j;
      const bool with_recv = j < acts.size() && forward(acts[j]) != fwd;
      const bool async = i + 1 < acts.size() && !takes_input(acts[i + 1]);
      Call out = w.call(call_name(fwd, with_recv, with_recv && forward(acts[j])), async);
      fwd ? w.send_fwd(out, ka) : w.send_bwd(out, ka);
      if (with_recv) {
        const std::int64_t kj = k(acts[j], forward(acts[j]));
        forward(acts[j]) ? w.recv_fwd(out, kj) : w.recv_bwd(out, kj);
        posted[j] = true;
      }
      const int handle = w.issue(out);
      if (!async) continue;
      ++i;
      if (at_action) at_action(i);
      w.compute(Pass::kWeight, k(acts[i], false));
      w.wait(handle);
    }
  }

  // Several chunks per rank: Megatron's interleaved calls with overlap (interleaved.cc), each direction on its
  // own: after a forward an async send_forward_recv_forward that also posts the receive of the rank's next
  // forward, after a backward an async send_backward_recv_backward with the next backward's receive, each
  // waited for just before the pass whose input it receives (the first pass of a direction receives alone).
  // A forward's send never waits for a backward's receive nor the other way round: a rank between chunks
  // holds no peer that runs another chunk's pass first, as Megatron's interleaved order does.
  void emit_chunks(const ScheduleShape& shape, int r, ProgramSink& sink,
                   const std::function<void(std::size_t)>& at_action) const {
    const std::vector<std::int64_t> k_of = shape.forward_step_of();
    const auto& acts = rows_.at(static_cast<std::size_t>(r));
    ProgramWriter w(shape, r, sink);
    int pending[2] = {-1, -1};  // per direction (forward, backward): the call carrying the next pass's receive
    for (std::size_t i = 0; i < acts.size(); ++i) {
      if (at_action) at_action(i);
      const ScheduleAction& a = acts[i];
      if (!takes_input(a)) {
        w.compute(Pass::kWeight, step_of(shape, k_of, a, false));
        continue;
      }
      const bool fwd = forward(a);
      const Pass pass = fwd ? Pass::kForward : Pass::kBackward;
      const std::int64_t ka = step_of(shape, k_of, a, fwd);
      int& pend = pending[fwd ? 0 : 1];
      if (pend < 0) {
        w.alone(false, pass, ka);
      } else {
        w.wait(pend);
      }
      w.compute(pass, ka);
      if (a.type == ActionType::kFullBackward && split_) w.compute(Pass::kWeight, ka);
      std::size_t j = i + 1;
      while (j < acts.size() && (!takes_input(acts[j]) || forward(acts[j]) != fwd)) ++j;
      const bool with_recv = j < acts.size();
      Call out = w.call(call_name(fwd, with_recv, fwd), true);
      fwd ? w.send_fwd(out, ka) : w.send_bwd(out, ka);
      if (with_recv) {
        const std::int64_t kj = step_of(shape, k_of, acts[j], fwd);
        fwd ? w.recv_fwd(out, kj) : w.recv_bwd(out, kj);
      }
      pend = w.issue(out);
    }
    w.wait(pending[0]);
    w.wait(pending[1]);
  }

  // Megatron's p2p_communication names: the send of a forward or backward, with the next receive or alone.
  static const char* call_name(bool fwd, bool with_recv, bool recv_fwd) {
    if (!with_recv) return fwd ? "send_forward" : "send_backward";
    if (fwd) return recv_fwd ? "send_forward_recv_forward" : "send_forward_recv_backward";
    return recv_fwd ? "send_backward_recv_forward" : "send_backward_recv_backward";
  }

  std::string name_, source_;
  std::vector<std::vector<ScheduleAction>> rows_;
  bool split_;
};

// The checks of a file against the plan's pipeline, each failing with one line that names the file and,
// where there is one, the row and cell.
class Checker {
 public:
  Checker(const std::string& what, const std::vector<std::vector<ScheduleAction>>& rows, int p, std::int64_t m)
      : what_(what), rows_(rows), p_(p), m_(m) {}

  // The stages' count over p (the chunks per rank) once every check passed.
  int run() {
    if (p_ < 2) fail("the plan's pipeline has " + std::to_string(p_) + " rank; a schedule file needs pp >= 2");
    if (rows_.size() != static_cast<std::size_t>(p_)) {
      fail(std::to_string(rows_.size()) + " rows with actions, but the plan's pipeline has " + std::to_string(p_) +
           " ranks (one row per rank)");
    }
    check_stages();
    check_microbatches();
    check_compute();
    check_communication();
    return stages_ / p_;
  }

  [[noreturn]] void fail(const std::string& why) const { throw UsageError(what_ + ": " + why); }
  [[noreturn]] void fail(const ScheduleAction& a, const std::string& why) const {
    fail("row " + std::to_string(a.row) + ", cell " + std::to_string(a.cell) + " '" + quotable(a.text) + "': " + why);
  }
  [[noreturn]] void fail_row(int rank, const std::string& why) const {
    fail("row " + std::to_string(rank + 1) + ": " + why);
  }

 private:
  void check_stages() {
    const ScheduleAction* top = nullptr;
    for (const auto& row : rows_)
      for (const auto& a : row)
        if (!top || a.stage > top->stage) top = &a;
    stages_ = top->stage + 1;
    if (stages_ % p_ != 0) {
      fail(*top, "stage " + std::to_string(top->stage) + " makes " + std::to_string(stages_) +
                     " stages, not a multiple of the plan's " + std::to_string(p_) + " pipeline ranks");
    }
    for (int r = 0; r < p_; ++r) {
      for (const auto& a : rows_[static_cast<std::size_t>(r)]) {
        if (a.stage % p_ == r) continue;
        if (v_shaped()) {
          fail_row(r, "stages " + std::to_string(r) + " and " + std::to_string(2 * p_ - 1 - r) +
                          " on one rank are V-shaped placement (ZBVZeroBubble, DualPipeV), which pipebench's "
                          "program model does not run yet (it places stage s on rank s mod p)");
        }
        fail(a, "stage " + std::to_string(a.stage) + " runs on rank " + std::to_string(a.stage % p_) +
                    " (stage s on rank s mod " + std::to_string(p_) + ", PyTorch's looped placement), not on rank " +
                    std::to_string(r));
      }
    }
  }

  // Rank r holds exactly stages r and 2p-1-r.
  bool v_shaped() const {
    if (stages_ != 2 * p_) return false;
    for (int r = 0; r < p_; ++r) {
      for (const auto& a : rows_[static_cast<std::size_t>(r)])
        if (a.stage != r && a.stage != 2 * p_ - 1 - r) return false;
    }
    return true;
  }

  void check_microbatches() const {
    std::int64_t top = -1;
    for (const auto& row : rows_) {
      for (const auto& a : row) {
        if (a.microbatch >= m_) {
          fail(a, "microbatch " + std::to_string(a.microbatch) + " is outside the plan's " + std::to_string(m_) +
                      " microbatches (0 to " + std::to_string(m_ - 1) + ")");
        }
        top = std::max(top, a.microbatch);
      }
    }
    if (top + 1 < m_) {
      fail("its microbatches are 0 to " + std::to_string(top) + ", but the plan has " + std::to_string(m_) +
           " (global batch / (micro batch x data parallel))");
    }
  }

  // Per (stage, microbatch): one F, then one B or one I and a later W, on its rank.
  void check_compute() const {
    struct Seen {
      const ScheduleAction *f = nullptr, *b = nullptr, *w = nullptr;
    };
    std::vector<Seen> seen(static_cast<std::size_t>(stages_ * m_));
    for (const auto& row : rows_) {
      for (const auto& a : row) {
        if (!a.compute()) continue;
        Seen& s = seen[static_cast<std::size_t>(a.stage * m_ + a.microbatch)];
        const ScheduleAction*& slot = forward(a) ? s.f : a.type == ActionType::kBackwardWeight ? s.w : s.b;
        if (slot)
          fail(a, "stage " + std::to_string(a.stage) + ", microbatch " + std::to_string(a.microbatch) +
                      " again (first at cell " + std::to_string(slot->cell) + ")");
        if (!forward(a) && !s.f) fail(a, "comes before the forward of its stage and microbatch");
        if (a.type == ActionType::kBackwardWeight && (!s.b || s.b->type != ActionType::kBackwardInput))
          fail(a, "a W without an I of its stage and microbatch before it");
        slot = &a;
      }
    }
    for (int st = 0; st < stages_; ++st) {
      for (std::int64_t mb = 0; mb < m_; ++mb) {
        const Seen& s = seen[static_cast<std::size_t>(st * m_ + mb)];
        const std::string which = std::to_string(st) + (s.f ? s.b ? "W" : "B" : "F") + std::to_string(mb);
        if (!s.f || !s.b || (s.b->type == ActionType::kBackwardInput && !s.w)) {
          fail_row(st % p_, "no " + which + " (every stage needs F and B, or F, I and W, of each of the plan's " +
                                std::to_string(m_) + " microbatches)");
        }
      }
    }
  }

  void check_communication() const;

  const std::string& what_;
  const std::vector<std::vector<ScheduleAction>>& rows_;
  int p_;
  std::int64_t m_;
  int stages_ = 0;
};

// SEND_F s k pairs with RECV_F s+1 k, SEND_B s k with RECV_B s-1 k; a send follows its compute on its row,
// a receive comes before the compute that takes it; once a file has any, every transfer has both.
void Checker::check_communication() const {
  struct Key {
    bool grad;
    int to_stage;
    std::int64_t mb;
    bool operator<(const Key& o) const { return std::tie(grad, to_stage, mb) < std::tie(o.grad, o.to_stage, o.mb); }
  };
  std::map<Key, const ScheduleAction*> sends, recvs;
  bool any = false;
  for (const auto& row : rows_) {
    std::set<std::pair<int, std::int64_t>> f_done, b_done;
    for (const auto& a : row) {
      const std::pair<int, std::int64_t> at{a.stage, a.microbatch};
      if (a.type == ActionType::kForward) f_done.insert(at);
      if (a.type == ActionType::kBackwardInput || a.type == ActionType::kFullBackward) b_done.insert(at);
      if (!a.communication()) continue;
      any = true;
      const bool grad = a.type == ActionType::kSendB || a.type == ActionType::kRecvB;
      const bool send = a.type == ActionType::kSendF || a.type == ActionType::kSendB;
      const int to = send ? (grad ? a.stage - 1 : a.stage + 1) : a.stage;
      if (send ? (to < 0 || to >= stages_) : (grad ? a.stage == stages_ - 1 : a.stage == 0))
        fail(a, std::string("stage ") + std::to_string(a.stage) +
                    (send ? " has no stage to send to" : " has no stage to receive from"));
      auto& map = send ? sends : recvs;
      if (!map.emplace(Key{grad, to, a.microbatch}, &a).second) fail(a, "the same transfer again");
      const bool computed = (grad ? b_done : f_done).count(at) > 0;
      if (send && !computed)
        fail(a, std::string("comes before the ") + (grad ? "backward" : "forward") + " whose output it sends");
      if (!send && computed)
        fail(a, std::string("comes after the ") + (grad ? "backward" : "forward") + " that takes it");
    }
  }
  for (const auto& [key, a] : sends)
    if (!recvs.count(key))
      fail(*a, "a send without its receive (no " + std::to_string(key.to_stage) + (key.grad ? "RECV_B" : "RECV_F") +
                   std::to_string(key.mb) + " on row " + std::to_string(key.to_stage % p_ + 1) + ")");
  for (const auto& [key, a] : recvs)
    if (!sends.count(key)) fail(*a, "a receive without its send");
  if (!any) return;
  for (const auto& row : rows_) {
    for (const auto& a : row) {
      const bool f = a.type == ActionType::kForward,
                 b = a.type == ActionType::kBackwardInput || a.type == ActionType::kFullBackward;
      if ((f && a.stage + 1 < stages_ && !sends.count({false, a.stage + 1, a.microbatch})) ||
          (b && a.stage > 0 && !sends.count({true, a.stage - 1, a.microbatch})))
        fail(a, std::string("its output goes to another stage, but the file, which lists transfers, has no ") +
                    (f ? "SEND_F" : "SEND_B") + " for it");
    }
  }
}

std::string stem_of(const std::string& path) {
  std::string stem = std::filesystem::path(path).stem().string();
  for (char& c : stem) {
    const bool ok =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
    if (!ok) c = '_';
  }
  return stem.empty() ? "schedule" : stem;
}

// The lowest rank left waiting, as the cell of the action it waits in.
void check_deadlock(const Checker& checker, const FileSchedule& g, const ScheduleShape& shape) {
  std::vector<std::vector<std::size_t>> step_of_action(static_cast<std::size_t>(shape.p));
  const auto d = find_deadlock(shape, [&](int r, ProgramSink& sink) {
    auto& steps = step_of_action[static_cast<std::size_t>(r)];
    std::size_t count = 0;
    class Counting final : public ProgramSink {
     public:
      Counting(ProgramSink& inner, std::size_t& n) : inner_(inner), n_(n) {}
      void compute(Pass pass, std::int64_t k) override { ++n_, inner_.compute(pass, k); }
      void call(const Call& c) override { ++n_, inner_.call(c); }
      void wait(int handle) override { ++n_, inner_.wait(handle); }

     private:
      ProgramSink& inner_;
      std::size_t& n_;
    } counting(sink, count);
    g.emit_rank(shape, r, counting, [&](std::size_t) { steps.push_back(count); });
  });
  if (!d) return;
  // A receive is named at the action that takes it (a call may carry the next action's receive), a send
  // at the action whose output it is.
  const auto& steps = step_of_action[static_cast<std::size_t>(d->rank)];
  const auto at = std::upper_bound(steps.begin(), steps.end(), d->step) - steps.begin() - 1;
  const std::vector<ScheduleAction>& row = g.row(d->rank);
  const ScheduleAction* a = &row.at(static_cast<std::size_t>(std::max<std::ptrdiff_t>(at, 0)));
  if (!d->send) {
    for (const auto& b : row) {
      if (b.stage == d->to_stage && b.microbatch == d->microbatch && takes_input(b) && forward(b) != d->grad) a = &b;
    }
  }
  checker.fail(*a, "deadlock: rank " + std::to_string(d->rank) + " waits here for " + d->waits_for +
                       " and no rank can go on (each rank runs its actions in order, " +
                       (shape.v == 1 ? "a receive before its compute, a send after it, in Megatron's blocking calls)"
                                     : "a send after its compute posted with the receive of the next pass of its "
                                       "direction and waited for before that pass, as Megatron's interleaved calls)"));
}

}  // namespace

ScheduleId schedule_from_csv(const std::string& what, std::string_view text, const std::string& stem, int p,
                             std::int64_t m) {
  std::vector<std::vector<ScheduleAction>> rows = parse_action_csv(text, what);
  Checker checker(what, rows, p, m);
  const int v = checker.run();
  bool split = false;
  std::vector<std::vector<ScheduleAction>> compute(rows.size());
  for (std::size_t r = 0; r < rows.size(); ++r) {
    for (const auto& a : rows[r]) {
      if (!a.compute()) continue;
      split = split || a.type == ActionType::kBackwardInput || a.type == ActionType::kBackwardWeight;
      compute[r].push_back(a);
    }
  }
  ScheduleId id{std::string(kPrefix) + stem, v, nullptr};
  auto g = std::make_shared<FileSchedule>(id.name, what, std::move(compute), split);
  ScheduleShape shape;
  shape.p = p;
  shape.v = v;
  shape.m = m;
  for (std::int64_t mb = 0; mb < m; ++mb)
    for (int c = 0; c < v; ++c) shape.table.emplace_back(mb, c);
  check_deadlock(checker, *g, shape);
  id.generator = std::move(g);
  return id;
}

ScheduleId load_schedule_file(const std::string& flag, const std::string& path, int p, std::int64_t m) {
  const std::string what = flag + " " + path;
  require_input_file(flag, path);
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  if (!ec && size > static_cast<std::uintmax_t>(kMaxScheduleFileBytes)) {
    throw UsageError(what + ": " + std::to_string(size) + " bytes, more than a schedule file may have (" +
                     std::to_string(kMaxScheduleFileBytes >> 20) + " MiB)");
  }
  return schedule_from_csv(what, read_input_file(flag, path), stem_of(path), p, m);
}

bool is_file_schedule_name(std::string_view name) {
  return name.size() > kPrefix.size() && name.substr(0, kPrefix.size()) == kPrefix;
}

std::string schedule_file_source(const ScheduleId& id) {
  const auto* g = dynamic_cast<const FileSchedule*>(id.generator.get());
  return g ? g->source() : "";
}

}  // namespace pipebench
