// SPDX-License-Identifier: Apache-2.0
// The plan's console text.
#include "report/plan_printer.h"

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "core/printf_string.h"
#include "core/units.h"
#include "megatron/pipeline_split.h"

namespace pipebench {
namespace {

std::string group_text(const std::vector<int>& g) {
  std::string s = "{";
  for (std::size_t i = 0; i < g.size() && i < 8; ++i) s += (i ? "," : "") + std::to_string(g[i]);
  if (g.size() > 8) s += ",... " + std::to_string(g.size()) + " ranks";
  return s + "}";
}

std::string mib(double bytes) { return printf_string("%.2f MiB", bytes / (1 << 20)); }

struct Totals {
  double p2p_out = 0, p2p_in = 0, collective = 0;
  [[nodiscard]] double all() const { return p2p_out + p2p_in + collective; }
};

std::map<int, Totals> totals(const Schedule& s) {
  std::map<int, Totals> t;
  for (const auto& m : s.messages) {
    const double bytes = static_cast<double>(m.bytes) * static_cast<double>(m.count);
    if (m.op.is_send())
      t[m.rank].p2p_out += bytes;
    else if (m.op.is_recv())
      t[m.rank].p2p_in += bytes;
    else
      t[m.rank].collective += bytes;
  }
  return t;
}

// The model, the layout and its groups, the valid v, and what the arguments left out or noted.
void print_plan_header(std::ostream& out, const Plan& plan) {
  const MegatronArgs& a = plan.args;
  const Layout& l = plan.layout;
  out << "# Megatron-LM plan: " << a.num_layers << " layers, hidden " << a.hidden << ", ffn " << a.ffn_hidden
      << ", heads " << a.heads << (a.gqa ? ", query groups " + std::to_string(a.query_groups) : "")
      << (a.swiglu ? ", swiglu" : "") << ", seq " << a.seq_length << ", micro batch " << a.micro_batch
      << ", global batch " << a.global_batch << ", " << dtype_name(a.params_dtype) << " params, "
      << dtype_name(grad_dtype(a)) << " grads\n";
  out << "# vocab " << a.vocab_size << " (" << a.vocab_source << ") padded to " << padded_vocab(a) << "\n";
  out << "# layout: world " << l.world << " = tp " << l.tp << " x cp " << l.cp << " x dp " << l.dp << " x pp " << l.pp
      << "; " << l.microbatches << " microbatches per iteration; rank order " << l.rank_order << "\n";
  out << "# pipeline groups " << group_text(l.pp_groups.front()) << (l.pp_groups.size() > 1 ? " ..." : "")
      << "; embedding group " << group_text(l.embedding_groups.front()) << "; tp " << group_text(l.tp_groups.front())
      << "; dp " << group_text(l.dp_groups.front()) << "\n";
  if (l.moe)
    out << "# expert groups: ep " << group_text(l.ep_groups.front()) << "; expert tp "
        << group_text(l.expert_tp_groups.front()) << "; expert tp x ep " << group_text(l.tp_ep_groups.front())
        << "; expert dp " << group_text(l.expert_dp_groups.front()) << " (ep " << l.ep << " x expert tp " << l.etp
        << " x expert dp " << l.edp << " x pp " << l.pp << ")\n";
  out << "# placement: global rank i runs on GPU i of a single node, or as the i-th rank of mpirun's order "
         "(one GPU per rank)\n";
  out << "# valid v (interleaved virtual stages per rank):";
  if (plan.valid_v.empty()) out << " none";
  for (int v : plan.valid_v) out << " " << v;
  out << "\n";
  if (!a.ignored.empty()) {
    out << "# ignored (no effect on communication):";
    for (const auto& s : a.ignored) out << " " << s;
    out << "\n";
  }
  for (const auto& u : a.unknown) out << "# warning: unknown Megatron argument " << u << " (ignored)\n";
  for (const auto& n : plan.notes) out << "# note: " << n << "\n";
}

// One schedule: warm-up, bubble, parameters (and layers) per stage, the first pipeline group's messages
// and its bytes per rank (beside 1F1B's, base, once 1F1B has been printed).
void print_schedule(std::ostream& out, const Plan& plan, const Schedule& s, std::map<int, Totals>& base) {
  const MegatronArgs& a = plan.args;
  const Layout& l = plan.layout;
  out << "#\n# schedule " << s.id.label() << ": warm-up microbatches per pipeline rank";
  for (auto w : s.warmup) out << " " << w;
  out << printf_string("; ideal bubble %.4f", s.bubble_ideal) << "\n# parameters per TP rank (pipeline rank/chunk):";
  for (const auto& p : s.params) out << " " << p.pp_rank << "/" << p.chunk << "=" << p.params;
  out << "\n";
  if (uneven_pipeline_split(a)) {
    out << "# transformer layers (pipeline rank/chunk):";
    for (const auto& p : s.params) out << " " << p.pp_rank << "/" << p.chunk << "=" << p.layers;
    out << "\n";
  }
  const auto& shown = l.pp_groups.front();
  out << "#  rank    id  op              peer/group            elements  dtype         bytes    count  phase      "
         "what\n";
  for (const auto& m : s.messages) {
    if (std::find(shown.begin(), shown.end(), m.rank) == shown.end()) continue;
    const std::string where = m.peer >= 0 ? "peer " + std::to_string(m.peer) : group_text(m.group);
    out << printf_string(
        "  %5d %5d  %-14s  %-18.18s %12lld  %-8s %12lld %8lld  %-9s  %s\n", m.rank, m.id,
        std::string(m.op.name()).c_str(), where.c_str(), static_cast<long long>(m.elements),
        std::string(dtype_name(m.dtype)).c_str(), static_cast<long long>(m.bytes), static_cast<long long>(m.count),
        phase_name(m.phase),
        (m.batch < 0 ? m.what : m.what + "  [batch " + std::to_string(m.batch) + " " + m.call + "]").c_str());
  }
  const auto t = totals(s);
  if (s.id.is_baseline()) base = t;
  out << "#  bytes per iteration:\n";
  for (int r : shown) {
    const auto it = t.find(r);
    if (it == t.end()) continue;
    out << printf_string("#   rank %-5d p2p out %s, in %s; collectives %s; total %s", r,
                         mib(it->second.p2p_out).c_str(), mib(it->second.p2p_in).c_str(),
                         mib(it->second.collective).c_str(), mib(it->second.all()).c_str());
    if (!s.id.is_baseline() && base.count(r) && base[r].p2p_out + base[r].p2p_in > 0) {
      out << printf_string("; p2p x%.2f, total x%.3f of 1F1B",
                           (it->second.p2p_out + it->second.p2p_in) / (base[r].p2p_out + base[r].p2p_in),
                           it->second.all() / base[r].all());
    }
    out << "\n";
  }
}

}  // namespace

void print_plan(std::ostream& out, const Plan& plan) {
  print_plan_header(out, plan);
  std::map<int, Totals> base;
  for (const auto& s : plan.schedules) print_schedule(out, plan, s, base);
  const Layout& l = plan.layout;
  if (l.world > static_cast<int>(l.pp_groups.front().size())) {
    out << "# (tables show the first pipeline group; every rank is in the JSON"
        << (static_cast<int>(plan.listed_ranks.size()) < l.world ? " only up to the listed ranks" : "") << ")\n";
  }
  out.flush();
}

}  // namespace pipebench
