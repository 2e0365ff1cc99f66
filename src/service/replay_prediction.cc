// SPDX-License-Identifier: Apache-2.0
#include "service/replay_prediction.h"

#include "backend/backend_factory.h"
#include "backend/gemm_timer.h"
#include "core/error.h"
#include "io/results_io.h"
#include "service/model_error_flags.h"
#include "service/plan_bench.h"
#include "sim/layer_gemms.h"
#include "sim/predict_request.h"

namespace pipebench {

std::unique_ptr<Prediction> replay_prediction(const World& world, const Plan& plan, Backend& backend,
                                              const ReplayOptions& o, const ReplayTable& t) {
  ResultSet results;  // rank 0: the table, read or measured
  std::string table = t.table_path;
  if (table.empty()) {  // the plan's messages on these ranks, on the replay's backend
    BenchConfig c;
    c.measure.iters = 10;
    c.measure.reps = 5;
    c.measure.warmup = 3;
    c.measure.quiet = t.quiet;
    // A schedule file runs on the messages of the plan's schedule of its v: every schedule's are timed.
    c.plan_schedule = o.schedule == "all" || !o.schedule_files.empty() ? "" : o.schedule;
    if (!t.json_path.empty()) c.outputs.json_path = t.json_path + ".table.json";
    table = t.json_path.empty() ? "(the plan's messages timed on these ranks)" : c.outputs.json_path;
    // At the process's own priority: ranks that spin in MPI waits at a real-time priority can starve
    // a peer of the same priority on their core for good (the replay's own waits sleep between polls).
    (void)run_plan_bench_on(backend, plan, t.plan_path, c, world, &results);
  }
  std::unique_ptr<Prediction> p;
  std::string error;
  if (world.rank() == 0) {
    try {
      if (!t.table_path.empty()) results = load_results("--table", table);
      PredictRequest request;
      request.costs = measured_table(std::move(results), table);
      request.compute = make_compute_model(plan, o.compute);
      request.schedule = o.schedule;
      request.schedule_files = o.schedule_files;
      request.keep_trace = true;
      p = std::make_unique<Prediction>(predict(plan, request).prediction);
    } catch (const ModelError& e) {
      error = with_flags(e, table, o.schedule).what();
    } catch (const UsageError& e) {
      error = e.what();
    }
  }
  error = world.broadcast(error, 0);
  if (!error.empty()) throw UsageError(error);
  return p;
}

void measure_replay_compute(const World& world, const Plan& plan, ComputeOptions& compute, bool w_share_given) {
#if PB_HAVE_CUBLAS
  std::string why;
  if (visible_gpus(&why) == 0) throw LocalUsageError("--measure-compute: no GPU to measure on (" + why + ")");
  const LayerDims dims = plan_layer_dims(plan);
  const DType t = plan_gemm_dtype(plan);
  const LayerBackwardGemms back = layer_backward_gemms(dims);
  compute.fwd_ms_per_layer = world.max(time_gemms_ms(layer_forward_gemms(dims), t, world.local_rank(), 20));
  const double dgrad_ms = world.max(time_gemms_ms(back.dgrad, t, world.local_rank(), 20));
  const double wgrad_ms = world.max(time_gemms_ms(back.wgrad, t, world.local_rank(), 20));
  use_measured_backward(compute, dgrad_ms, wgrad_ms, w_share_given);
#else
  (void)world;
  (void)plan;
  (void)compute;
  (void)w_share_given;
  throw UsageError("--measure-compute: this pipebench was built without cuBLAS");
#endif
}

}  // namespace pipebench
