// SPDX-License-Identifier: Apache-2.0
// `pipebench plan`: the messages of one iteration per rank and schedule, as tables and JSON.
#include "app/plan_command.h"

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <map>

#include "backend/backend_factory.h"
#include "core/error.h"
#include "core/units.h"
#include "io/plan_io.h"
#include "megatron/pipeline_split.h"
#include "report/results_json.h"

namespace pipebench {
namespace {

std::string group_text(const std::vector<int>& g) {
  std::string s = "{";
  for (std::size_t i = 0; i < g.size() && i < 8; ++i) s += (i ? "," : "") + std::to_string(g[i]);
  if (g.size() > 8) s += ",... " + std::to_string(g.size()) + " ranks";
  return s + "}";
}

std::string mib(double bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f MiB", bytes / (1 << 20));
  return buf;
}

struct Totals {
  double p2p_out = 0, p2p_in = 0, collective = 0;
  [[nodiscard]] double all() const { return p2p_out + p2p_in + collective; }
};

std::map<int, Totals> totals(const Schedule& s) {
  std::map<int, Totals> t;
  for (const auto& m : s.messages) {
    const double bytes = static_cast<double>(m.bytes) * static_cast<double>(m.count);
    if (m.op == "send")
      t[m.rank].p2p_out += bytes;
    else if (m.op == "recv")
      t[m.rank].p2p_in += bytes;
    else
      t[m.rank].collective += bytes;
  }
  return t;
}

}  // namespace

void print_plan(std::ostream& out, const Plan& plan) {
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
  std::map<int, Totals> base;
  for (const auto& s : plan.schedules) {
    out << "#\n# schedule " << s.id.label() << ": warm-up microbatches per pipeline rank";
    for (auto w : s.warmup) out << " " << w;
    char bubble[64];
    std::snprintf(bubble, sizeof bubble, "; ideal bubble %.4f", s.bubble_ideal);
    out << bubble << "\n# parameters per TP rank (pipeline rank/chunk):";
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
      char buf[400];
      const std::string where = m.peer >= 0 ? "peer " + std::to_string(m.peer) : group_text(m.group);
      std::snprintf(
          buf, sizeof buf, "  %5d %5d  %-14s  %-18.18s %12lld  %-8s %12lld %8lld  %-9s  %s\n", m.rank, m.id,
          m.op.c_str(), where.c_str(), static_cast<long long>(m.elements), std::string(dtype_name(m.dtype)).c_str(),
          static_cast<long long>(m.bytes), static_cast<long long>(m.count), phase_name(m.phase),
          (m.batch < 0 ? m.what : m.what + "  [batch " + std::to_string(m.batch) + " " + m.call + "]").c_str());
      out << buf;
    }
    const auto t = totals(s);
    if (s.id.is_baseline()) base = t;
    out << "#  bytes per iteration:\n";
    for (int r : shown) {
      const auto it = t.find(r);
      if (it == t.end()) continue;
      char buf[256];
      std::snprintf(buf, sizeof buf, "#   rank %-5d p2p out %s, in %s; collectives %s; total %s", r,
                    mib(it->second.p2p_out).c_str(), mib(it->second.p2p_in).c_str(), mib(it->second.collective).c_str(),
                    mib(it->second.all()).c_str());
      out << buf;
      if (!s.id.is_baseline() && base.count(r) && base[r].p2p_out + base[r].p2p_in > 0) {
        char ratio[96];
        std::snprintf(ratio, sizeof ratio, "; p2p x%.2f, total x%.3f of 1F1B",
                      (it->second.p2p_out + it->second.p2p_in) / (base[r].p2p_out + base[r].p2p_in),
                      it->second.all() / base[r].all());
        out << ratio;
      }
      out << "\n";
    }
  }
  if (l.world > static_cast<int>(l.pp_groups.front().size())) {
    out << "# (tables show the first pipeline group; every rank is in the JSON"
        << (static_cast<int>(plan.listed_ranks.size()) < l.world ? " only up to the listed ranks" : "") << ")\n";
  }
  out.flush();
}

int run_plan_command(const PlanOptions& o) {
  const MegatronArgs args = parse_megatron_args(o.megatron_args);
  const int gpus = args.world_size ? 0 : visible_gpus(nullptr);
  const Plan plan = make_plan(args, gpus);
  if (!o.json_path.empty()) {
    try {
      write_file_atomically(o.json_path,
                            plan_to_json(plan).dump(1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
    } catch (const Error& e) {
      throw UsageError(std::string("--json: ") + e.what());
    }
  }
  print_plan(std::cout, plan);
  return static_cast<int>(ExitCode::kOk);
}

namespace {

const char* const kPlanHelp =
    "the messages of a Megatron-LM pipeline plan\n"
    "Usage: pipebench plan [--json FILE] -- <Megatron-LM arguments>\n"
    "\n"
    "Options:\n"
    "  -h,--help                   Print this help message and exit\n"
    "  --json FILE                 write the plan JSON here (the input of bench --plan, predict, replay)\n"
    "\n"
    "Megatron-LM arguments (after --, as given to pretrain_gpt.py; any other argument Megatron-LM accepts is\n"
    "listed as ignored, or noted where it changes communication that is not modelled; a name Megatron-LM\n"
    "would refuse is an error):\n"
    "  model       --num-layers --hidden-size --ffn-hidden-size --num-attention-heads --num-query-groups\n"
    "              --group-query-attention --swiglu --untie-embeddings-and-output-weights --seq-length\n"
    "              --max-position-embeddings --vocab-size --vocab-file --tokenizer-type\n"
    "              --make-vocab-size-divisible-by --normalization --position-embedding-type --disable-bias-linear\n"
    "  parallel    --tensor-model-parallel-size --pipeline-model-parallel-size --context-parallel-size\n"
    "              --num-layers-per-virtual-pipeline-stage --num-virtual-stages-per-pipeline-rank\n"
    "              --sequence-parallel --world-size --rank-order --decoder-first-pipeline-num-layers\n"
    "              --decoder-last-pipeline-num-layers --account-for-embedding-in-pipeline-split\n"
    "              --account-for-loss-in-pipeline-split\n"
    "  batch       --micro-batch-size --global-batch-size --microbatch-group-size-per-virtual-pipeline-stage\n"
    "  precision   --fp16 --bf16 --accumulate-allreduce-grads-in-fp32 --grad-reduce-in-bf16\n"
    "  optimizer   --use-distributed-optimizer --overlap-grad-reduce --ddp-bucket-size --fp8-param-gather\n"
    "              --no-overlap-p2p-communication --megatron-version\n"
    "Example: pipebench plan --json plan.json -- --num-layers 32 --hidden-size 4096 --num-attention-heads 32 \\\n"
    "           --seq-length 4096 --max-position-embeddings 4096 --micro-batch-size 1 --global-batch-size 64 \\\n"
    "           --pipeline-model-parallel-size 4 --vocab-size 32000\n"
    "A whole launch line is taken too (its world from --nproc_per_node x --nnodes):\n"
    "  pipebench plan -- torchrun --nproc_per_node 8 --nnodes 16 pretrain_gpt.py <Megatron-LM arguments>\n"
    "\n"
    "The whole page, with examples: pipebench help plan\n";

// Its words go to the Megatron parser, not to CLI11: everything after "--", or everything but --json FILE.
class PlanCommand final : public Subcommand {
 public:
  std::string name() const override { return "plan"; }
  std::string summary() const override { return "the messages of a Megatron-LM pipeline plan"; }
  void add_options(CLI::App& /*sub*/) override {}
  void finish(const CLI::App& /*sub*/, const CommandExtras& /*extras*/) override {}
  bool takes_raw_words() const override { return true; }
  std::string parse_raw_words(const std::vector<std::string>& words) override;
  int run(const World* /*world*/) override { return run_plan_command(o_); }

 private:
  PlanOptions o_;
};

std::string PlanCommand::parse_raw_words(const std::vector<std::string>& words) {
  bool after = false, has_json = false;
  const bool has_separator = std::find(words.begin(), words.end(), "--") != words.end();
  for (std::size_t i = 0; i < words.size(); ++i) {
    const std::string& w = words[i];
    if (!after && w == "--") {
      after = true;
    } else if (!after && w == "--json") {
      if (i + 1 >= words.size()) throw UsageError("--json: a file name is required");
      o_.json_path = words[++i];
      has_json = true;
    } else if (!after && w.rfind("--json=", 0) == 0) {
      o_.json_path = w.substr(7);
      has_json = true;
    } else if (!after && (w == "--help" || w == "-h")) {
      return kPlanHelp;
    } else if (!after && has_separator) {
      throw UsageError(w + ": unknown plan option (Megatron arguments go after --)");
    } else {
      o_.megatron_args.push_back(w);
    }
  }
  // "--json ''" (a script's unset variable) would write nothing and still exit 0 (parse_errors.h).
  if (has_json && o_.json_path.empty()) {
    throw UsageError(
        "plan: --json: the value is empty; usage: pipebench plan [--json FILE] -- <Megatron-LM arguments>");
  }
  return {};
}

}  // namespace

std::unique_ptr<Subcommand> make_plan_command() { return std::make_unique<PlanCommand>(); }

}  // namespace pipebench
