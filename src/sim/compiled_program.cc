// SPDX-License-Identifier: Apache-2.0
// Program -> CompiledProgram.
#include "sim/compiled_program.h"

#include <algorithm>
#include <unordered_map>
#include <utility>

#include "core/error.h"

namespace pipebench {
namespace {

// A duration's index in the table: a linear scan of the first kScan entries (a generated rank has 2 v + 1
// distinct ones), a hash map past them (hand-made programs may give every task its own).
class DurationTable {
 public:
  explicit DurationTable(std::vector<SimTime>& table) : table_(table) {}
  std::int32_t index(SimTime d) {
    const std::size_t scan = std::min(table_.size(), kScan);
    for (std::size_t i = 0; i < scan; ++i) {
      if (table_[i] == d) return static_cast<std::int32_t>(i);
    }
    if (table_.size() >= kScan) {
      const auto [it, added] = beyond_.try_emplace(d, static_cast<std::int32_t>(table_.size()));
      if (!added) return it->second;
    }
    table_.push_back(d);
    return static_cast<std::int32_t>(table_.size() - 1);
  }

 private:
  static constexpr std::size_t kScan = 32;
  std::vector<SimTime>& table_;
  std::unordered_map<SimTime, std::int32_t> beyond_;
};

// The steps; whether the kP2P tasks name the ops in order, one after another from the first, and all of them.
bool compile_steps(const Program& p, CompiledProgram& out) {
  out.steps.reserve(p.tasks.size());
  DurationTable durations(out.durations);
  std::size_t next_op = 0;
  bool in_order = true;
  for (const Task& t : p.tasks) {
    CompiledProgram::Step s;
    s.kind = t.kind;
    switch (t.kind) {
      case Task::Kind::kCompute:
        s.arg = durations.index(t.duration);
        break;
      case Task::Kind::kP2P:
        if (static_cast<std::size_t>(t.first_op) + t.nops > p.ops.size())
          throw Error("a P2P task names ops past its program's " + std::to_string(p.ops.size()));
        in_order = in_order && t.first_op == next_op;
        next_op += t.nops;
        s.blocking = t.blocking;
        s.nops = t.nops;
        s.arg = t.handle;
        break;
      case Task::Kind::kWait:
        s.arg = t.handle;
        break;
      case Task::Kind::kCollective:
        s.arg = t.collective;
        break;
    }
    out.steps.push_back(s);
  }
  for (const P2POp& op : p.ops) out.max_tag = std::max(out.max_tag, op.tag);
  out.source_ops = p.ops.size();
  return in_order && next_op == p.ops.size();
}

void copy_ops(const Program& p, CompiledProgram& out) {
  for (const Task& t : p.tasks) {
    if (t.kind == Task::Kind::kP2P)
      out.ops.insert(out.ops.end(), p.ops.begin() + t.first_op, p.ops.begin() + t.first_op + t.nops);
  }
}

}  // namespace

CompiledProgram compile_program(Program&& p) {
  CompiledProgram out;
  if (compile_steps(p, out)) {
    out.ops = std::move(p.ops);
  } else {
    copy_ops(p, out);
  }
  return out;
}

CompiledProgram compile_program(const Program& p) {
  CompiledProgram out;
  if (compile_steps(p, out)) {
    out.ops = p.ops;
  } else {
    copy_ops(p, out);
  }
  return out;
}

}  // namespace pipebench
