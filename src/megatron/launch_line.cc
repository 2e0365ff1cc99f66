// SPDX-License-Identifier: Apache-2.0
// The launcher prefix of a pasted training command. torchrun's flags are those of
// torch/distributed/run.py (its parser accepts both --nproc_per_node and --nproc-per-node spellings).
#include "megatron/launch_line.h"

#include <algorithm>
#include <cstdint>

#include "cli/number_checks.h"
#include "core/error.h"
#include "core/text.h"

namespace pipebench {
namespace {

// "--nproc_per_node", "--nproc-per-node" -> "nproc_per_node".
std::string torchrun_name(std::string w) {
  w = w.substr(0, w.find('='));
  while (!w.empty() && w.front() == '-') w.erase(w.begin());
  std::replace(w.begin(), w.end(), '-', '_');
  return w;
}

int positive_count(const std::string& flag, const std::string& value) {
  std::int64_t n = 0;
  std::size_t used = 0;
  try {
    n = std::stoll(value, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != value.size() || n < 1 || n > checks::kMaxInt32)
    throw UsageError(flag + " " + value +
                     ": not a count of processes or nodes this plan can use (give --world-size N after the script)");
  return static_cast<int>(n);
}

}  // namespace

LaunchLine split_launch_line(const std::vector<std::string>& words) {
  LaunchLine line;
  if (words.empty() || words.front().rfind("--", 0) == 0) {
    line.megatron_args = words;
    return line;
  }
  const auto script =
      std::find_if(words.begin(), words.end(), [](const std::string& w) { return ends_with(w, ".py"); });
  if (script == words.end())
    throw UsageError(words.front() +
                     ": not a Megatron argument; give the arguments of pretrain_gpt.py, or a whole line "
                     "`torchrun ... pretrain_gpt.py ARGS`");
  int nproc = 0, nnodes = 0;
  for (auto w = words.begin(); w != script; ++w) {
    line.launcher += (line.launcher.empty() ? "" : " ") + *w;
    const std::string name = torchrun_name(*w);
    if (name != "nproc_per_node" && name != "nnodes") continue;
    std::string value;
    if (w->find('=') != std::string::npos) {
      value = w->substr(w->find('=') + 1);
    } else if (w + 1 != script) {
      value = *++w;
      line.launcher += " " + value;
    }
    (name == "nnodes" ? nnodes : nproc) = positive_count("--" + name, value);
  }
  line.launcher += " " + *script;
  if (nproc > 0) {
    const std::int64_t world = static_cast<std::int64_t>(nproc) * std::max(1, nnodes);
    if (world > checks::kMaxInt32) throw UsageError(line.launcher + ": a world of " + std::to_string(world) + " ranks");
    line.world_size = static_cast<int>(world);
  }
  line.megatron_args.assign(script + 1, words.end());
  return line;
}

}  // namespace pipebench
