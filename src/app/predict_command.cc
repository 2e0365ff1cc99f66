// SPDX-License-Identifier: Apache-2.0
// `pipebench predict`.
#include "app/predict_command.h"

#include <CLI/CLI.hpp>
#include <cstdlib>
#include <iostream>
#include <map>
#include <sstream>

#include "app/profile_prediction.h"
#include "backend/backend_factory.h"
#include "cli/number_checks.h"
#include "core/distinct_files.h"
#include "core/error.h"
#include "core/file_io.h"
#include "core/json_file.h"
#include "core/printf_string.h"
#include "core/units.h"
#include "io/chrome_trace_text.h"
#include "io/nccl_tests_argument.h"
#include "io/nccl_tests_log.h"
#include "io/plan_io.h"
#include "io/prediction_io.h"
#include "io/replay_io.h"
#include "io/results_io.h"
#include "io/topology_io.h"
#include "megatron/plan.h"
#include "replay/replay.h"
#include "report/prediction_report.h"
#include "schedule/activation_memory.h"
#include "schedule/schedule_file.h"
#include "schedule/schedule_registry.h"
#include "service/model_error_flags.h"
#include "service/pass_cost_terms.h"
#include "service/plan_pass_costs.h"
#include "sim/layer_gemms.h"
#include "sim/predict_request.h"
#include "sim/verdict.h"
#include "topology/discovery.h"
#include "topology/link_class.h"
#include "trace/job_reader.h"

#if PB_HAVE_CUBLAS
#include "backend/gemm_timer.h"
#include "report/pass_costs_printer.h"
#endif

namespace pipebench {

namespace {

struct MeasuredLayer {
  double fwd_ms = 0, dgrad_ms = 0, wgrad_ms = 0;  // per layer and microbatch
  double comm_sm_slowdown = 0, pass_gap_ms = 0;   // backend/pass_costs.h
};

#if PB_HAVE_CUBLAS
// What a pass pays beside its GEMMs on GPU 0 (backend/pass_costs.h), printed with each term's spread.
void measure_pass_terms(const Plan& plan, MeasuredLayer& m, std::ostream& out) {
  const PassCostRequest request = plan_pass_cost_request(plan, 0);
  if (request.p2p_bytes <= 0) {
    out << "# --measure-compute: the plan has no P2P message: no pass costs measured\n";
    return;
  }
  const PassCosts c = measure_pass_costs(request);
  print_pass_costs(out, "--measure-compute", c);
  m.comm_sm_slowdown = c.comm_sm_slowdown();
  m.pass_gap_ms = c.sync_gap_us.median_us / 1e3;
}
#endif

// --measure-compute: the layer's forward GEMMs at their exact shapes on GPU 0, and a bare cuBLAS loop
// per shape beside them as a check; then its backward GEMMs, dgrad and wgrad apart.
MeasuredLayer measure_layer(const Plan& plan, std::ostream& out) {
#if PB_HAVE_CUBLAS
  std::string why;
  if (visible_gpus(&why) == 0) throw UsageError("--measure-compute: no GPU to measure on (" + why + ")");
  const DType t = plan_gemm_dtype(plan);
  const auto shapes = layer_forward_gemms(plan_layer_dims(plan));
  const double ms = time_gemms_ms(shapes, t, 0, 20);
  out << printf_string("# --measure-compute: layer forward GEMMs on GPU 0 in %s: %.4f ms (median of 20)\n",
                       std::string(dtype_name(t)).c_str(), ms);
  double bare = 0, flops = 0;
  for (const auto& s : shapes) {
    const double one = bare_gemm_loop_ms(s, t, 0, 20);
    bare += one;
    flops += s.flops();
    out << printf_string("#   %-20s [%lld x %lld x %lld] x %lld: bare cuBLAS loop %.4f ms (%.0f TFLOP/s)\n",
                         s.name.c_str(), static_cast<long long>(s.m), static_cast<long long>(s.n),
                         static_cast<long long>(s.k), static_cast<long long>(s.batch), one, s.flops() / (one * 1e9));
  }
  out << printf_string("#   sum of bare loops %.4f ms; measured %.4f ms (%.0f TFLOP/s over the layer)\n", bare, ms,
                       flops / (ms * 1e9));
  const LayerBackwardGemms back = layer_backward_gemms(plan_layer_dims(plan));
  MeasuredLayer m{ms, time_gemms_ms(back.dgrad, t, 0, 20), time_gemms_ms(back.wgrad, t, 0, 20)};
  out << printf_string(
      "# --measure-compute: layer backward GEMMs: dgrad %.4f ms + wgrad %.4f ms = %.4f ms (%.2fx the forward); W is "
      "%.2f of it\n",
      m.dgrad_ms, m.wgrad_ms, m.dgrad_ms + m.wgrad_ms, (m.dgrad_ms + m.wgrad_ms) / ms,
      m.wgrad_ms / (m.dgrad_ms + m.wgrad_ms));
  measure_pass_terms(plan, m, out);
  return m;
#else
  (void)plan;
  (void)out;
  throw UsageError("--measure-compute: this pipebench was built without cuBLAS");
#endif
}

// This machine's topology as a bare topology file places it: rank i on GPU i, each GPU pair's class (the
// class `topo` prints for it: NV# where NVLinks join the pair, else its PCIe class).
Placement this_machine() {
  const TopologyView v = discover_topology({});
  std::vector<int> indices;
  for (const auto& g : v.topology.gpus) indices.push_back(g.index);
  Placement placement = Placement::rank_per_gpu(indices);
  placement.link_gpus(links_of(v));
  return placement;
}

// 1F1B's activations held at the peak per pipeline rank, beside which the memory notes of the schedules
// that split B and W are printed; empty when none does.
std::vector<double> base_activations(const Plan& plan, const Prediction& p) {
  for (const auto& s : p.schedules) {
    if (s.activations_held.empty()) continue;
    const ScheduleId base{"1f1b", 1};
    return peak_activations(schedule_generator(base), megatron_shape(plan.args, plan.layout, base));
  }
  return {};
}

// --topology FILE (a results file, or `pipebench topo --format json` where rank i is GPU i), else this
// machine's topology.
Placement class_placement(const std::string& path) {
  if (path.empty()) return this_machine();
  const nlohmann::json j = read_json_file("--topology", path);
  const bool results = j.is_object() && (j.value("schema", "") == kResultsSchema || j.contains("system"));
  if (results) return place_ranks(results_from_json(j, "--topology " + path));
  return place_ranks(topology_from_json(j, "--topology " + path));
}

// One --link value, CLASS=GBPS[,US], read whole (a third field or trailing text is refused); the same
// ranges as --link-gbps and --link-latency-us (NaN fails every comparison, so test inside-range).
ClassLink parse_class_link(const std::string& spec, double default_us) {
  const auto eq = spec.find('=');
  const std::optional<LinkClass> cls = parse_link_class(spec.substr(0, eq));
  ClassLink l{cls.value_or(LinkClass{}), 0, default_us};
  bool ok = eq != std::string::npos && cls.has_value();
  if (ok) {
    const std::string values = spec.substr(eq + 1);
    const auto comma = values.find(',');
    const auto number = [](const std::string& text, double& v) {
      char* end = nullptr;
      v = std::strtod(text.c_str(), &end);
      return !text.empty() && end == text.c_str() + text.size();
    };
    ok = number(values.substr(0, comma), l.gbps) &&
         (comma == std::string::npos || number(values.substr(comma + 1), l.us));
  }
  ok = ok && l.gbps >= checks::kMinLinkGbps && l.gbps <= checks::kMaxLinkGbps && l.us >= 0 &&
       l.us <= checks::kMaxLatencyUs;
  if (!ok) {
    throw UsageError("--link " + spec +
                     ": expected CLASS=GBPS[,US] with CLASS one of X, NV#, PIX, PXB, PHB, NODE, SYS, NET, GBPS in "
                     "[0.001, 1e6] and US in [0, 1e6]");
  }
  return l;
}

// --link-gbps, with --link CLASS=GBPS[,US] for groups of a class (classes from --topology or this machine).
AssumedLinks assumed_links(const PredictOptions& o) {
  AssumedLinks a{o.link_gbps, o.link_latency_us, {}, {}, ""};
  if (o.class_links.empty()) return a;
  for (const auto& spec : o.class_links) a.class_links.push_back(parse_class_link(spec, o.link_latency_us));
  a.placement = class_placement(o.topology_path);
  if (!a.placement.knows_a_pair()) {
    throw UsageError("--link: no GPU pairs in " +
                     (o.topology_path.empty() ? std::string("this machine's topology") : o.topology_path) +
                     " to give ranks their classes (rank i is GPU i)");
  }
  return a;
}

// --table: a results file, or an nccl-tests log read as `pipebench import nccl-tests` would; FILE:OP for a
// log that does not name its op (io/nccl_tests_argument.h). An nccl-tests table stands for every group.
// `pass_costs`: what the results file recorded of them (bench --plan, run).
MeasuredTable load_table(const PredictOptions& o, std::optional<PassCosts>& pass_costs) {
  const LogArgument arg = split_log_argument("--table", o.table_path);
  const std::string text = read_input_file("--table", arg.path);
  std::optional<ResultSet> results = nccl_tests_result_set_of(arg.path, text, arg.op, "--table");
  if (!results && !arg.op.empty()) {
    throw UsageError("--table " + o.table_path + ": not an nccl-tests log; FILE:OP gives the op of an nccl-tests log");
  }
  if (!results) results = load_results("--table", arg.path);
  pass_costs = results->pass_costs;
  MeasuredTable t = measured_table(std::move(*results), o.table_path);
  if (t.from_nccl_tests && o.class_fallback) {
    throw UsageError("--class-fallback: " + o.table_path +
                     " is an nccl-tests import; its table stands for every group already");
  }
  t.class_fallback = o.class_fallback;
  return t;
}

// The one cost source the options name (checked by the caller), and the pass costs a results table recorded.
CostSource cost_source(const PredictOptions& o, std::optional<PassCosts>& pass_costs) {
  if (!o.table_path.empty()) return load_table(o, pass_costs);
  if (o.link_gbps > 0) return assumed_links(o);
  return ZeroComm{};
}

// --replay FILE: the verdict's band from how far this prediction's speed-ups are from the ones that replay
// measured (sim/verdict.h measured_band). The replay must have run 1F1B and another schedule of this
// prediction.
void band_from_replay(const std::string& path, Prediction& p) {
  const ReplayResult r = replay_from_json(read_json_file("--replay", path), "--replay " + path);
  std::map<std::string, double> predicted, replayed;
  for (const auto& s : p.schedules) {
    if (!s.reference) predicted[s.id.key()] = p.compared_ms(s);
  }
  int common = 0;
  for (const auto& s : r.schedules) {
    const std::string key = s.id.key();
    if (s.reference || s.iteration_ms.empty() || !predicted.count(key)) continue;
    replayed[key] = s.median_ms;
    common += key != "1f1b";
  }
  if (!replayed.count("1f1b") || common == 0) {
    throw UsageError("--replay " + path +
                     ": needs a replay of 1F1B and of another schedule of this prediction (pipebench replay "
                     "--schedule all --json FILE on the same plan)");
  }
  decide_verdict(p, measured_band(predicted, replayed), "measured by " + path);
}

// The flags checked against each other before any file is read: one cost source, and no flag of another.
void check_flags(const PredictOptions& o) {
  if (o.plan_path.empty()) throw UsageError("--plan: a plan file (pipebench plan --json) is required");
  const int models = (!o.table_path.empty()) + (o.link_gbps > 0) + (o.zero_comm ? 1 : 0) + (!o.profiles.empty());
  if (!o.profiles.empty()) {
    const ComputeOptions& c = o.compute;
    const char* given = c.fwd_ms_per_layer > 0   ? "--fwd-ms-per-layer"
                        : c.bwd_ms_per_layer > 0 ? "--bwd-ms-per-layer"
                        : c.tflops > 0           ? "--tflops"
                        : c.optimizer_ms > 0     ? "--optimizer-ms"
                        : o.measure_compute      ? "--measure-compute"
                        : o.pass_gap_us          ? "--pass-gap-us"
                        : !o.replay_path.empty() ? "--replay"
                                                 : nullptr;
    if (given) throw UsageError(std::string(given) + ": the profile gives it (--profile measures every term)");
  } else if (!o.profile_schedule.empty()) {
    throw UsageError("--profile-schedule: names the schedule of --profile's profiles; give --profile");
  }
  for (const auto& spec : o.class_links) (void)parse_class_link(spec, o.link_latency_us);  // the value first
  if (!o.class_links.empty() && o.link_gbps <= 0) {
    throw UsageError("--link CLASS=GBPS needs --link-gbps for the other classes");
  }
  // A flag of one cost source given with another is bad input, never ignored.
  if (o.class_fallback && o.table_path.empty()) throw UsageError("--class-fallback: applies to --table costs only");
  if (o.link_latency_us > 0 && o.link_gbps <= 0) {
    throw UsageError("--link-latency-us: applies to an assumed link (--link-gbps) only");
  }
  if (o.shared_path && o.zero_comm) {  // free transfers share nothing: the flag changed no number
    throw UsageError("--shared-path: has no effect with --zero-comm (free transfers never wait for a path)");
  }
  if (!o.topology_path.empty() && o.class_links.empty()) {  // it was never read: a FIFO even passed
    throw UsageError("--topology " + o.topology_path + ": read only with --link CLASS=GBPS (the classes of the pairs)");
  }
  if (models != 1) {
    throw UsageError(
        "communication costs: give exactly one of --table RESULTS.json, --link-gbps GBPS, --zero-comm, --profile DIR");
  }
}

// predict --trace's file of one schedule.
std::string trace_path(const std::string& dir, const ScheduleId& id) {
  return dir + "/trace-" + id.file_stem() + ".json";
}

// Every file predict may write: --json and the trace of each schedule the selection picks (a reference
// too large to simulate may be left out then). Checked against the inputs before the prediction runs, as
// the traces are written while it runs; the --trace folder is made before, so that a --json or an input
// inside it is compared with the trace file of its name.
std::vector<FileArg> outputs_of(const PredictOptions& o, const Plan& plan, const std::vector<ScheduleId>& files) {
  std::vector<FileArg> outputs = {{"--json", o.json_path}};
  if (o.trace_dir.empty()) return outputs;
  ScheduleSelection selection = parse_schedule_selection("--schedule", o.schedule);
  selection.files = files;
  for (const PlannedSchedule& s : selected_schedules(plan, selection))
    outputs.push_back({"--trace", trace_path(o.trace_dir, s.id)});
  return outputs;
}

// Compute where no profile gives it: the options' model, or --measure-compute's; then the pass-cost terms of
// the flags, else of the table's record (--measure-compute measured them here: a table's give way to it).
ComputeModel unprofiled_compute(const PredictOptions& o, const Plan& plan, const std::optional<PassCosts>& recorded,
                                std::string& measured_note, std::vector<std::string>& pass_sources) {
  ComputeOptions compute = o.compute;
  ComputeModel model;
  if (o.measure_compute) {
    if (compute.fwd_ms_per_layer > 0 || compute.tflops > 0) {
      throw UsageError("--measure-compute cannot be combined with --fwd-ms-per-layer or --tflops");
    }
    std::ostringstream note;
    const MeasuredLayer m = measure_layer(plan, note);
    compute.fwd_ms_per_layer = m.fwd_ms;
    use_measured_backward(compute, m.dgrad_ms, m.wgrad_ms, o.w_share_given);
    if (!o.comm_sm_slowdown_given) compute.comm_sm_slowdown = m.comm_sm_slowdown;
    measured_note = note.str();
    model = make_compute_model(plan, compute);
    model.pass_overhead_ms = m.pass_gap_ms;
  } else {
    model = make_compute_model(plan, compute);
  }
  const PassCostFlags given{o.comm_sm_slowdown_given ? std::optional<double>(o.compute.comm_sm_slowdown) : std::nullopt,
                            o.pass_gap_us};
  pass_sources = use_pass_costs(o.measure_compute ? std::nullopt : recorded, given, model);
  return model;
}

int predict_and_print(const PredictOptions& o) {
  check_flags(o);
  std::vector<FileArg> inputs = {{"--plan", o.plan_path},
                                 {"--table", split_log_argument("--table", o.table_path).path},
                                 {"--topology", o.topology_path},
                                 {"--schedule-file", o.schedule_file}};
  const std::vector<std::string> profiles =
      o.profiles.empty() ? std::vector<std::string>{} : expand_trace_inputs("--profile", o.profiles);
  for (const auto& f : profiles) {
    require_input_file("--profile", f);  // a FIFO or a device: one line naming the flag, never a blocking read
    inputs.push_back({"--profile", f});
  }
  require_distinct_files(inputs, {{"--json", o.json_path}});
  // Before the table is printed (and before --measure-compute times anything): a --json that cannot be
  // written was told only after the whole table. The --trace folder first: a --json may lie in it.
  if (!o.trace_dir.empty()) make_output_folder("--trace", o.trace_dir);
  if (!o.json_path.empty()) require_output_in_folder("--json", o.json_path);
  const Plan plan = load_plan("--plan", o.plan_path);
  PredictRequest request;
  std::string measured_note;
  std::vector<std::string> pass_sources;  // the pass-cost terms set, with where each came from
  std::optional<ProfileModel> profiled;
  if (!profiles.empty()) {
    profiled = profile_model(plan, profiles, o.profile_schedule,
                             o.w_share_given ? std::optional<double>(o.compute.w_share) : std::nullopt);
    request.costs = GivenCosts{profiled->calibration.costs.get(), profiled->cost_text};
    request.compute = profiled->calibration.compute;
  } else {
    std::optional<PassCosts> recorded;
    request.costs = cost_source(o, recorded);
    request.compute = unprofiled_compute(o, plan, recorded, measured_note, pass_sources);
  }
  if (!o.schedule_file.empty()) {
    request.schedule_files.push_back(
        load_schedule_file("--schedule-file", o.schedule_file, plan.layout.pp, plan.layout.microbatches));
  }
  const Plan& predicted = profiled ? profiled->calibration.plan : plan;
  const std::vector<FileArg> outputs = outputs_of(o, predicted, request.schedule_files);
  require_distinct_files(inputs, outputs);
  for (const auto& f : outputs) {  // a link, FIFO or folder among them: told before the first trace is written
    if (!f.path.empty()) require_output_path(f.flag, f.path);
  }
  std::vector<std::string> traces;  // streamed to their files while the prediction runs, never held
  if (!o.trace_dir.empty()) {
    request.trace_sink = [&](const ScheduleId& id, const TracedSimulation& simulate) {
      traces.push_back(trace_path(o.trace_dir, id));
      (void)write_output_file("--trace", traces.back(), [&simulate](const TracePieceSink& put) {
        ChromeTraceText text(put);
        text.finish(global_ranks(simulate([&text](const TraceEvent& e) { text.event(e); })));
      });
    };
  }
  request.schedule = o.schedule;
  request.links = o.shared_path ? LinkModel::kSharedPath : LinkModel::kTopologyPaths;
  request.keep_trace = !o.trace_dir.empty();
  request.compare_cold = o.compare == "cold";
  PredictOutcome outcome = predict(predicted, request);
  Prediction& p = outcome.prediction;
  p.w_share = request.compute.w_share;
  p.cost_sources.insert(p.cost_sources.end(), pass_sources.begin(), pass_sources.end());
  if (o.measure_compute) p.compute_source = "measured with cuBLAS on GPU 0 (--measure-compute)";
  if (profiled) apply_profile(*profiled, p);
  if (!o.replay_path.empty()) band_from_replay(o.replay_path, p);

  std::ostream& out = std::cout;
  out << measured_note;
  print_prediction(out, o.plan_path, outcome.cost_text, o.shared_path, outcome.link_count,
                   request.compute.comm_sm_slowdown, p, base_activations(plan, p));
  for (const auto& path : traces) out << "# Chrome trace: " << path << "\n";
  if (!o.json_path.empty()) {
    try {
      save_prediction(o.json_path, p);
    } catch (const Error& e) {
      throw UsageError(std::string("--json: ") + e.what());
    }
  }
  out.flush();
  return static_cast<int>(ExitCode::kOk);
}

class PredictCommand final : public Subcommand {
 public:
  std::string name() const override { return "predict"; }
  std::string summary() const override { return "1F1B vs interleaved for every v, simulated on a bandwidth table"; }
  void add_options(CLI::App& sub) override;
  void finish(const CLI::App& /*sub*/, const CommandExtras& /*extras*/) override {}
  int run(const World* /*world*/) override {
    try {
      return predict_and_print(o_);
    } catch (const ModelError& e) {
      throw with_flags(e, o_.table_path, o_.schedule);
    }
  }

 private:
  void add_compute_options(CLI::App& sub);
  PredictOptions o_;
};

void PredictCommand::add_options(CLI::App& sub) {
  sub.add_option("--plan", o_.plan_path, "the plan (pipebench plan --json)")->required();
  sub.add_option("--table", o_.table_path,
                 "measured costs: bench --plan's results JSON, or an nccl-tests log (LOG:OP where it does not name "
                 "its op) or its import");
  sub.add_option("--link-gbps", o_.link_gbps, "what-if: every link this many GB/s per direction")
      ->check(checks::in_range(checks::kMinLinkGbps, checks::kMaxLinkGbps));
  sub.add_option("--link-latency-us", o_.link_latency_us, "what-if: per-message latency")
      ->check(checks::non_negative(checks::kMaxLatencyUs));
  sub.add_flag("--zero-comm", o_.zero_comm, "free communication (a compute-only bound)");
  sub.add_option("--link", o_.class_links, "what-if per class: CLASS=GBPS[,US] (repeatable)");
  sub.add_option("--topology", o_.topology_path,
                 "with --link: classes from this `pipebench topo --format json` file (rank i = GPU i)");
  sub.add_flag("--class-fallback", o_.class_fallback,
               "with --table: a missing group takes a measured group of its class");
  sub.add_flag("--shared-path", o_.shared_path, "every pipeline pair shares one path (no GPU P2P)");
  add_compute_options(sub);
  sub.add_option("--schedule", o_.schedule, schedule_flag_help());
  sub.add_option("--schedule-file", o_.schedule_file,
                 "also this schedule: per-rank actions in PyTorch pipelining's CSV (0F3,1I2,0W1,...)");
  sub.add_option("--trace", o_.trace_dir, "write one Chrome trace per schedule into this folder");
  sub.add_option("--json", o_.json_path, "write the prediction JSON here");
  sub.add_option("--profile", o_.profiles,
                 "costs and compute from the job's own profile: one PyTorch profiler trace or Nsight Systems export "
                 "per rank (files or a folder) of the schedule that ran")
      ->expected(1, -1);
  sub.add_option("--profile-schedule", o_.profile_schedule,
                 "the schedule --profile's profiles ran (default: the plan's schedule whose passes match them)");
  sub.add_option("--replay", o_.replay_path,
                 "the verdict's uncertainty band from this replay's measured error (pipebench replay --json)");
  sub.add_option("--compare", o_.compare,
                 "the iteration speed-ups compare: steady (the last of 3 back to back, default) or cold (the first)")
      ->check(CLI::IsMember({"steady", "cold"}));
}

void PredictCommand::add_compute_options(CLI::App& sub) {
  ComputeOptions& c = o_.compute;
  sub.add_option("--fwd-ms-per-layer", c.fwd_ms_per_layer, "forward time per layer and microbatch")
      ->check(checks::positive(checks::kMaxLayerMs));
  sub.add_option("--bwd-ms-per-layer", c.bwd_ms_per_layer, "backward time (default 2x forward)")
      ->check(checks::positive(checks::kMaxLayerMs));
  sub.add_option("--w-share", c.w_share,
                 "W's part of the backward where a schedule splits B and W (default 0.5; measured with "
                 "--measure-compute)")
      ->check(checks::in_range(0, 1))
      ->each([this](const std::string&) { o_.w_share_given = true; });
  sub.add_option("--tflops", c.tflops, "achieved TFLOP/s per GPU for the FLOPs model")
      ->check(checks::in_range(checks::kMinTflops, checks::kMaxTflops));
  sub.add_option("--comm-sm-slowdown", c.comm_sm_slowdown,
                 "compute (1 + F) x slower while the rank's NCCL work runs (default: --table's or "
                 "--measure-compute's; else 0)")
      ->check(checks::non_negative(100))
      ->each([this](const std::string&) { o_.comm_sm_slowdown_given = true; });
  sub.add_option("--pass-gap-us", o_.pass_gap_us,
                 "what-if: GPU idle before each pass (default: --table's or --measure-compute's; else 0)")
      ->check(checks::non_negative(1e6));
  sub.add_flag("--measure-compute", o_.measure_compute,
               "time the layer's GEMMs at their exact shapes with cuBLAS on GPU 0");
  sub.add_option("--optimizer-ms", c.optimizer_ms, "optimizer step time")
      ->check(checks::non_negative(checks::kMaxLayerMs));
}

}  // namespace

std::unique_ptr<Subcommand> make_predict_command() { return std::make_unique<PredictCommand>(); }

}  // namespace pipebench
