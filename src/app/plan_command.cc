// SPDX-License-Identifier: Apache-2.0
// `pipebench plan`: the messages of one iteration per rank and schedule, as tables and JSON.
#include "app/plan_command.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <iostream>

#include "backend/backend_factory.h"
#include "core/error.h"
#include "core/units.h"
#include "io/plan_io.h"
#include "report/plan_printer.h"

namespace pipebench {
namespace {

int run_plan_command(const PlanOptions& o) {
  const MegatronArgs args = parse_megatron_args(o.megatron_args);
  const int gpus = args.world_size ? 0 : visible_gpus(nullptr);
  const Plan plan = make_plan(args, gpus);
  if (!o.json_path.empty()) {
    try {
      save_plan(o.json_path, plan);
    } catch (const Error& e) {
      throw UsageError(std::string("--json: ") + e.what());
    }
  }
  print_plan(std::cout, plan);
  return static_cast<int>(ExitCode::kOk);
}

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
  // The help and the page's flag table read this definition; the words are read by parse_raw_words.
  void add_options(CLI::App& sub) override {
    sub.add_option("--json", o_.json_path, "write the plan JSON here (the input of bench --plan, predict, replay)")
        ->type_name("FILE");
  }
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
