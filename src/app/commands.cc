// SPDX-License-Identifier: Apache-2.0
#include "app/commands.h"

#include "app/bench_command.h"
#include "app/help_command.h"
#include "app/import_command.h"
#include "app/pairs_command.h"
#include "app/plan_command.h"
#include "app/predict_command.h"
#include "app/replay_command.h"
#include "app/report_command.h"
#include "app/run_command.h"
#include "app/topo_command.h"
#include "app/trace_command.h"

namespace pipebench {

std::vector<std::unique_ptr<Subcommand>> make_command_table() {
  std::vector<std::unique_ptr<Subcommand>> table;
  table.push_back(std::make_unique<BenchCommand>());
  table.push_back(std::make_unique<RunCommand>());
  table.push_back(make_topo_command());
  table.push_back(make_pairs_command());
  table.push_back(make_plan_command());
  table.push_back(make_predict_command());
  table.push_back(make_trace_command());
  table.push_back(make_replay_command());
  table.push_back(make_report_command());
  table.push_back(make_import_command());
  table.push_back(make_help_command());
  return table;
}

}  // namespace pipebench
