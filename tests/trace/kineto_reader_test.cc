// SPDX-License-Identifier: Apache-2.0
// The Kineto reader on a trace PyTorch 2.11 wrote on an H200 (tests/fixtures/trace/make_kineto_trace.py)
// and on small synthetic traces for what one rank on one GPU cannot show.
#include "trace/kineto_reader.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "core/error.h"
#include "trace/profile_builder.h"

namespace pipebench {
namespace {

const std::string kFixture = std::string(TEST_DATA_DIR) + "/trace/kineto_allreduce_1gpu.json";

std::string write_tmp(const std::string& name, const std::string& text) {
  const std::string path = "/tmp/pipebench_kineto_" + std::to_string(getpid()) + "_" + name;
  std::ofstream(path) << text;
  return path;
}

const KernelRow* find_row(const DeviceProfile& d, const std::string& prefix) {
  for (const auto& r : d.rows)
    if (r.name.rfind(prefix, 0) == 0) return &r;
  return nullptr;
}

TEST(KinetoReader, RealTraceBreakdownAndCollectives) {
  const TraceProfile p = read_kineto_json(kFixture, TraceOptions{});
  EXPECT_EQ(p.source, "kineto-json");
  EXPECT_EQ(p.format_version, "1");
  EXPECT_EQ(p.rank.value(), 0);
  EXPECT_EQ(p.world_size.value(), 1);
  EXPECT_EQ(p.kernel_rows, 4);
  EXPECT_EQ(p.skipped_rows, 0);
  EXPECT_TRUE(p.damage.empty());
  ASSERT_EQ(p.devices.size(), 1u);
  const DeviceProfile& d = p.devices[0];
  EXPECT_EQ(d.device, 0);
  EXPECT_EQ(d.name, "NVIDIA H200");
  // First kernel at ts 5361879996045.291 us, last ends at 5361879997648.493 + 1.44 us.
  EXPECT_NEAR(static_cast<double>(d.span_ns()), 1604642.0, 2.0);
  ASSERT_EQ(d.rows.size(), 2u);
  const KernelRow* gemm = find_row(d, "sm80_xmma_gemm_f32f32");
  ASSERT_NE(gemm, nullptr);
  EXPECT_EQ(gemm->stream, 7);
  EXPECT_EQ(gemm->count, 2);
  EXPECT_NEAR(static_cast<double>(gemm->total_ns), 112448.0, 2.0);
  EXPECT_NEAR(static_cast<double>(gemm->min_ns), 55808.0, 1.0);
  EXPECT_NEAR(static_cast<double>(gemm->max_ns), 56640.0, 1.0);
  EXPECT_FALSE(gemm->comm);
  const KernelRow* one_rank = find_row(d, "__nv_static_32__b4148644_10_onerank_cu");
  ASSERT_NE(one_rank, nullptr);
  EXPECT_TRUE(one_rank->comm);  // NCCL's one-rank reduction, tagged with "Collective name"
  EXPECT_NEAR(static_cast<double>(one_rank->total_ns), 2848.0, 2.0);
  EXPECT_NEAR(static_cast<double>(d.comm_ns), 2848.0, 2.0);
  EXPECT_NEAR(d.share(d.comm_ns), 2848.0 / 1604642.0, 1e-5);

  // Two profiled steps of five c10d calls, from record_param_comms.
  ASSERT_EQ(d.collectives.size(), 5u);
  struct Want {
    const char* op;
    std::int64_t elements;
    const char* dtype;
    std::int64_t bytes;
  };
  const Want want[] = {{"all_gather", 131072, "bfloat16", 262144},
                       {"all_reduce", 4096, "float", 16384},
                       {"all_reduce", 131072, "bfloat16", 262144},
                       {"broadcast", 1024, "float", 4096},
                       {"reduce_scatter", 262144, "bfloat16", 524288}};
  for (std::size_t i = 0; i < 5; ++i) {
    const auto& c = d.collectives[i];
    EXPECT_EQ(c.op, want[i].op);
    EXPECT_EQ(c.elements, want[i].elements);
    EXPECT_EQ(c.dtype, want[i].dtype);
    EXPECT_EQ(c.bytes().value(), want[i].bytes);
    EXPECT_EQ(c.count, 2);
    EXPECT_EQ(c.group_size, 1);
    EXPECT_EQ(c.source, "record_param_comms");
  }
}

TEST(KinetoReader, ByNvtxUsesTheRecordFunctionRangeOfTheLaunchingThread) {
  TraceOptions o;
  o.by_nvtx = true;
  const TraceProfile p = read_kineto_json(kFixture, o);
  ASSERT_EQ(p.devices.size(), 1u);
  const auto& rows = p.devices[0].rows;
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].name, "forward");
  EXPECT_TRUE(rows[0].nvtx_range);
  EXPECT_EQ(rows[0].count, 2);
  EXPECT_EQ(rows[1].name, "nccl:all_reduce");  // innermost, inside "grads"
  EXPECT_TRUE(rows[1].comm);
  EXPECT_EQ(p.nvtx_ranges, 14);
}

TEST(KinetoReader, NcclKernelMetadataWithoutCpuOpsStringStreamsAndSkippedEvents) {
  const std::string path = write_tmp("nccl.json", R"({
    "deviceProperties": [{"id": 0, "name": "GPU A"}, {"id": 1, "name": "GPU B"}],
    "traceEvents": [
      {"ph": "X", "cat": "kernel", "name": "ncclDevKernel_AllReduce_Sum_bf16_RING_LL", "pid": 0, "tid": "stream 13",
       "ts": 10.0, "dur": 4.0, "args": {"Collective name": "allreduce", "In msg nelems": 1048576,
       "Out msg nelems": 1048576, "dtype": "BFloat16", "Group size": 8}},
      {"ph": "X", "cat": "kernel", "name": "ncclDevKernel_SendRecv", "pid": 1, "tid": 21, "ts": 12.5, "dur": 1.5,
       "args": {"Collective name": "send", "In msg nelems": 4096, "Out msg nelems": 0, "dtype": "Half", "Group size": 2}},
      {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 11.0, "dur": 1.0, "args": {}},
      {"ph": "X", "cat": "kernel", "name": "broken", "pid": 0, "tid": 7, "ts": 11.0},
      {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 9, "tid": 9, "ts": 1, "dur": 1},
      {"ph": "i", "cat": "kernel", "name": "instant", "pid": 0, "tid": 7, "ts": 1},
      42
    ]})");
  const TraceProfile p = read_kineto_json(path, TraceOptions{});
  EXPECT_EQ(p.kernel_rows, 3);
  EXPECT_EQ(p.skipped_rows, 2);
  EXPECT_EQ(p.skipped_by_reason.at("kernel event without ts, dur, name, device or stream"), 1);
  ASSERT_EQ(p.devices.size(), 2u);
  const auto& d0 = p.devices[0];
  EXPECT_EQ(d0.name, "GPU A");
  EXPECT_EQ(d0.span_ns(), 4000);
  EXPECT_EQ(d0.comm_ns, 4000);
  EXPECT_EQ(d0.busy_ns, 4000);
  ASSERT_EQ(d0.collectives.size(), 1u);
  EXPECT_EQ(d0.collectives[0].source, "kernel_args");
  EXPECT_EQ(d0.collectives[0].elements, 1048576);
  EXPECT_EQ(d0.collectives[0].group_size, 8);
  EXPECT_EQ(d0.collectives[0].bytes().value(), 2097152);
  const KernelRow* ar = find_row(d0, "ncclDevKernel_AllReduce");
  ASSERT_NE(ar, nullptr);
  EXPECT_EQ(ar->stream, 13);  // from "stream 13"
  const auto& d1 = p.devices[1];
  ASSERT_EQ(d1.collectives.size(), 1u);
  EXPECT_EQ(d1.collectives[0].op, "send");
  EXPECT_EQ(d1.collectives[0].elements, 4096);
  EXPECT_EQ(d1.collectives[0].dtype, "half");
}

TEST(KinetoReader, BadFiles) {
  auto expect_usage = [](const std::string& name, const std::string& text, const std::string& says) {
    const std::string path = write_tmp(name, text);
    try {
      (void)read_kineto_json(path, TraceOptions{});
      ADD_FAILURE() << name << ": no error";
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
    }
  };
  expect_usage("notrace.json", R"({"schemaVersion": 1})", "no \"traceEvents\"");
  expect_usage("broken.json", "{\"traceEvents\" 5}", "not JSON");
  expect_usage("scalar.json", "\"a string\"", "not JSON");
  // Kernel names without bound would be memory without bound: one past the limit is refused by name.
  std::string unique = R"({"traceEvents": [)";
  for (std::size_t i = 0; i <= kMaxTraceKernelNames; ++i) {
    unique += std::string(i ? "," : "") + R"({"ph": "X", "cat": "kernel", "name": "k)" + std::to_string(i) +
              R"(", "pid": 0, "tid": 7, "ts": )" + std::to_string(i) + R"(, "dur": 1, "args": {}})";
  }
  expect_usage("unique.json", unique + "]}", "more than 65536 distinct kernel names");
  // A key twice in one event: refused (results, plans and rules refuse it too), not the last value kept.
  expect_usage("twice.json",
               R"({"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 1000.0, )"
               R"("ts": 5, "dur": 300}]})",
               ": key \"ts\" given twice in one object of event 1");

  // Cut off after two events: what was read is kept, with the damage said.
  const std::string cut = write_tmp("cut.json", R"({"traceEvents": [
      {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 1.0, "dur": 1.0},
      {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 3.0, "dur": 1.0},
      {"ph": "X", "cat": "kern)");
  const TraceProfile p = read_kineto_json(cut, TraceOptions{});
  EXPECT_EQ(p.kernel_rows, 2);
  EXPECT_NE(p.damage.find("after 2 events"), std::string::npos) << p.damage;
}

// Rows whose times cannot be times (a negative dur, ts=-1e18, "rank -3 of 0") are skipped and counted with
// their reason, never clamped or taken.
TEST(KinetoReader, NegativeAndOutOfRangeTimesAndImpossibleRanksAreSkippedAndCounted) {
  const std::string path = write_tmp("bad_times.json", R"({
    "distributedInfo": {"rank": -3, "world_size": 0},
    "traceEvents": [
      {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 100.0, "dur": 10.0},
      {"ph": "X", "cat": "kernel", "name": "ncclDevKernel_AllReduce_Sum_f32_RING_LL", "pid": 0, "tid": 9,
       "ts": 104.0, "dur": 2.0},
      {"ph": "X", "cat": "kernel", "name": "negative", "pid": 0, "tid": 7, "ts": 120.0, "dur": -50.0},
      {"ph": "X", "cat": "kernel", "name": "ncclDevKernel_far_past", "pid": 0, "tid": 9, "ts": -1e18, "dur": 1.0},
      {"ph": "X", "cat": "kernel", "name": "far_future", "pid": 0, "tid": 7, "ts": 1e300, "dur": 1.0},
      {"ph": "X", "cat": "kernel", "name": "huge_device", "pid": 1e300, "tid": 7, "ts": 100.0, "dur": 1.0},
      {"ph": "X", "cat": "kernel", "name": "bad_device", "pid": -2, "tid": 7, "ts": 100.0, "dur": 1.0},
      {"ph": "X", "cat": "user_annotation", "name": "step", "pid": 5, "tid": 5, "ts": 90.0, "dur": -1.0}
    ]})");
  const TraceProfile p = read_kineto_json(path, TraceOptions{});
  EXPECT_EQ(p.kernel_rows, 2);
  EXPECT_EQ(p.skipped_by_reason.at("kernel event with a negative or out-of-range ts or dur"), 3);
  EXPECT_EQ(p.skipped_by_reason.at("kernel event with a device id out of range"), 1);
  EXPECT_EQ(p.skipped_by_reason.at("kernel event without ts, dur, name, device or stream"), 1);  // pid 1e300
  EXPECT_EQ(p.skipped_by_reason.at("user_annotation with a negative or out-of-range ts or dur"), 1);
  EXPECT_EQ(p.skipped_by_reason.at("distributedInfo with rank -3 of world size 0 (not a rank of that world; ignored)"),
            1);
  EXPECT_EQ(p.skipped_rows, 7);
  EXPECT_FALSE(p.rank.has_value());
  EXPECT_FALSE(p.world_size.has_value());
  ASSERT_EQ(p.devices.size(), 1u);
  const DeviceProfile& d = p.devices[0];
  EXPECT_EQ(d.span_ns(), 10000);
  EXPECT_EQ(d.comm_ns, 2000);
  EXPECT_GE(d.share(d.comm_ns), 0.0);
  EXPECT_LE(d.share(d.busy_ns), 1.0);
}

// A trace of `kernels` kernel events, about 150 bytes each.
std::string big_trace(int kernels) {
  std::string text = "{\"traceEvents\": [\n";
  for (int i = 0; i < kernels; ++i) {
    text += std::string(i ? ",\n" : "") + "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"gemm_" +
            std::to_string(i % 7) + "\", \"pid\": 0, \"tid\": 7, \"ts\": " + std::to_string(i * 2) +
            ", \"dur\": 1, \"args\": {\"device\": 0, \"stream\": 7}}";
  }
  return text + "\n]}\n";
}

TEST(KinetoReader, ReportsTheMiBParsedOfTheFileSize) {
  const std::string path = write_tmp("progress.json", big_trace(60000));  // about 8 MiB
  std::vector<std::int64_t> done;
  std::int64_t total = -1;
  TraceOptions o;
  o.progress = [&](const std::string& unit, std::int64_t d, std::int64_t t) {
    EXPECT_EQ(unit, "MiB");
    done.push_back(d);
    total = t;
  };
  const TraceProfile p = read_kineto_json(path, o);
  EXPECT_EQ(p.kernel_rows, 60000);
  EXPECT_GE(total, 7);
  ASSERT_GE(done.size(), 4u);  // every 16384 events, and the end
  EXPECT_TRUE(std::is_sorted(done.begin(), done.end()));
  EXPECT_GT(done.front(), 0);
  EXPECT_LT(done.front(), total);
  EXPECT_EQ(done.back(), total);
  std::remove(path.c_str());
}

}  // namespace
}  // namespace pipebench
