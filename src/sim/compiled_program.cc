// SPDX-License-Identifier: Apache-2.0
// Program -> CompiledProgram.
#include "sim/compiled_program.h"

#include <algorithm>
#include <unordered_map>
#include <utility>

#include "core/error.h"

namespace pipebench {
namespace {

// A value's index in a table of distinct values (compute durations, P2P sizes): a linear scan of the first
// kScan entries (a generated rank has 2 v + 1 durations and one or two sizes), a hash map past them
// (hand-made programs may give every task its own).
class ValueTable {
 public:
  explicit ValueTable(std::vector<std::int64_t>& table) : table_(table) {}
  std::int32_t index(std::int64_t d) {
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
  std::vector<std::int64_t>& table_;
  std::unordered_map<std::int64_t, std::int32_t> beyond_;
};

// The steps, and whether the kP2P tasks name the ops in order, one after another from the first, and all of them.
bool compile_steps(const Program& p, CompiledProgram& out) {
  out.steps.reserve(p.tasks.size());
  ValueTable durations(out.durations);
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

CompiledProgram::Op compile_op(const P2POp& op, ValueTable& sizes) {
  CompiledProgram::Op out;
  out.tag = op.tag;
  out.peer = op.peer;
  out.size_send = static_cast<std::uint32_t>(sizes.index(op.bytes)) << 1 | (op.send ? 1U : 0U);
  return out;
}

}  // namespace

CompiledProgram compile_program(const Program& p, std::pmr::memory_resource* memory) {
  CompiledProgram out(memory);
  ValueTable sizes(out.sizes);
  if (compile_steps(p, out)) {
    out.ops.reserve(p.ops.size());
    for (const P2POp& op : p.ops) out.ops.push_back(compile_op(op, sizes));
    return out;
  }
  for (const Task& t : p.tasks) {
    if (t.kind != Task::Kind::kP2P) continue;
    for (std::size_t i = t.first_op; i < static_cast<std::size_t>(t.first_op) + t.nops; ++i)
      out.ops.push_back(compile_op(p.ops[i], sizes));
  }
  return out;
}

CompiledProgram compile_program(Program&& p, std::pmr::memory_resource* memory) {
  const Program program = std::move(p);
  return compile_program(program, memory);
}

}  // namespace pipebench
