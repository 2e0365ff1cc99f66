// SPDX-License-Identifier: Apache-2.0
// A whole launch line pasted from a script: `torchrun --nproc_per_node 8 --nnodes 16 pretrain_gpt.py
// ARGS` (or `python -m torch.distributed.run ...`, `python pretrain_gpt.py ARGS`). The launcher's words
// are taken off; its world (processes per node x nodes) is kept for the plan.
#pragma once

#include <string>
#include <vector>

namespace pipebench {

struct LaunchLine {
  std::vector<std::string> megatron_args;  // the words after the training script
  int world_size = 0;                      // --nproc_per_node x --nnodes of torchrun; 0 where not given
  std::string launcher;                    // e.g. "torchrun --nproc_per_node 8 --nnodes 16": for messages
};

// Words that start with a Megatron argument ("--...") are returned as they are. Otherwise the words up to
// and including the first ending in ".py" are the launcher. Throws UsageError naming the word for a
// launcher line without a training script, and for --nproc_per_node / --nnodes values that are not a
// positive count (torchrun's "gpu", "auto" or an elastic range "1:4": give --world-size instead).
[[nodiscard]] LaunchLine split_launch_line(const std::vector<std::string>& words);

}  // namespace pipebench
