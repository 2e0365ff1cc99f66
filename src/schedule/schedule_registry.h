// SPDX-License-Identifier: Apache-2.0
// The schedule generators: each schedule file registers itself with one line, PB_REGISTER_SCHEDULE(Type),
// as ops do in collectives/registry.h. plan, bench --plan, predict, replay and trace take their schedules'
// steps from here, so adding a schedule is one generator file, its test and a README row.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "schedule/program.h"
#include "schedule/schedule_id.h"

namespace pipebench {

// What separates one iteration from the next: Megatron's synchronous optimizer step (the found-inf and
// grad-norm all-reduces over the model-parallel group make it a point every rank reaches: iteration n+1
// starts on every rank after the last rank's step of iteration n), or the Zero Bubble paper's optimizer
// post-validation (Qi et al., ICLR 2024, §4: each rank steps at once and those all-reduces validate the
// step later, so a rank starts iteration n+1 as soon as its own step of iteration n is done).
enum class StepRule : std::uint8_t { kSynchronous, kPostValidation };
[[nodiscard]] const char* step_rule_name(StepRule rule);  // "synchronous step", "post-validation"

class ScheduleGenerator {
 public:
  virtual ~ScheduleGenerator() = default;
  [[nodiscard]] virtual const char* name() const = 0;     // the --schedule name, "1f1b"
  [[nodiscard]] virtual const char* summary() const = 0;  // what it is, in a few words of --schedule's help
  // Runs several model chunks per rank (v > 1, Megatron's interleaved table); otherwise v is 1.
  [[nodiscard]] virtual bool interleaves() const = 0;
  // The chunks per rank it always runs (ZB-V: 2), or 0 where it takes any v its kind allows.
  [[nodiscard]] virtual int chunks() const { return 0; }
  // Which rank runs which virtual stage (program.h): Megatron's loop unless the generator says otherwise.
  [[nodiscard]] virtual StagePlacement placement() const { return StagePlacement::kLoop; }
  // A reference Megatron does not run (GPipe): predicted and replayed beside the others on the 1F1B
  // plan's messages, never the verdict's pick, and no batch ids in the plan.
  [[nodiscard]] virtual bool reference() const { return false; }
  // Writes B (Pass::kBackward, the activation gradient) and W (Pass::kWeight, the weight gradient) as
  // separate passes; otherwise every backward pass is B and W together.
  [[nodiscard]] virtual bool splits_backward() const { return false; }
  // How its iterations follow each other (StepRule): Megatron's synchronous step unless it says otherwise.
  [[nodiscard]] virtual StepRule step_rule() const { return StepRule::kSynchronous; }
  // The steps of pipeline rank r (0 <= r < shape.p) in order.
  virtual void emit(const ScheduleShape& shape, int r, ProgramSink& sink) const = 0;
  // Every rank's steps, rank 0 to p-1, each written whole to sink_of(r) before sink_of(r + 1) is asked for
  // (so a caller can finish rank r's program there). A generator whose ranks share work (the timeline of
  // schedule/timeline_steps.h: every rank's order played together) does it once here instead of p times.
  using SinkOf = std::function<ProgramSink&(int r)>;
  virtual void emit_all(const ScheduleShape& shape, const SinkOf& sink_of) const {
    for (int r = 0; r < shape.p; ++r) emit(shape, r, sink_of(r));
  }
};

class ScheduleRegistry {
 public:
  static ScheduleRegistry& instance();
  void add(std::unique_ptr<ScheduleGenerator> g);
  // Throws UsageError naming `flag`, the name and the known names (with a did-you-mean).
  [[nodiscard]] const ScheduleGenerator& find(std::string_view flag, std::string_view name) const;
  [[nodiscard]] const ScheduleGenerator* find_or_null(std::string_view name) const;
  [[nodiscard]] std::vector<std::string> names() const;  // in registration-independent (sorted) order

 private:
  std::vector<std::unique_ptr<ScheduleGenerator>> generators_;
};

// --schedule's help, from the registered generators: "all, or one: 1f1b (SUMMARY), interleaved[:vN] (SUMMARY), ...".
[[nodiscard]] std::string schedule_flag_help();

// The generator of id: its own (a schedule file's), else the registered one of its name. Throws UsageError
// for an unregistered name.
[[nodiscard]] const ScheduleGenerator& schedule_generator(const ScheduleId& id);

namespace detail {
template <typename T>
struct ScheduleRegistrar {
  ScheduleRegistrar() { ScheduleRegistry::instance().add(std::make_unique<T>()); }
};
}  // namespace detail

// NOTE: schedule objects are linked directly (not from a static library), so their registrars run.
#define PB_REGISTER_SCHEDULE(Type) \
  static const ::pipebench::detail::ScheduleRegistrar<Type> pb_schedule_registrar_##Type {}

}  // namespace pipebench
