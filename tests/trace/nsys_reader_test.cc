// SPDX-License-Identifier: Apache-2.0
// The Nsight Systems SQLite reader on exports built from the documented schema: every number of the
// breakdown and of the collective table, NVTX attribution, schema variants, and bad files.
#include "trace/nsys_reader.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "core/error.h"
#include "trace/chrome_trace_writer.h"
#include "trace/nsys_fixture.h"
#include "trace/trace_report.h"

namespace pipebench {
namespace {

#if PB_HAVE_SQLITE

using testing::NsysFixture;
using testing::NsysFixtureOptions;

std::string tmp_path(const std::string& name) { return "/tmp/pipebench_nsys_" + std::to_string(getpid()) + "_" + name; }

// Two processes: pid 100 (thread 7) drives device 0, pid 200 (thread 9) device 1. Times in ns.
void fill_two_devices(NsysFixture& f) {
  const auto gemm = f.str("sm90_gemm_bf16");
  const auto ar = f.str("ncclDevKernel_AllReduce_Sum_bf16_RING_LL");
  const auto sr = f.str("ncclDevKernel_SendRecv");
  const auto launch = f.str("cudaLaunchKernel_v7000");
  f.gpu(0, "NVIDIA H200");
  f.gpu(1, "NVIDIA H200");
  // device 0
  f.kernel(0, 7, 1000, 3000, gemm, 1, 100);
  f.kernel(0, 7, 3000, 5000, gemm, 2, 100);
  f.kernel(0, 13, 2500, 4500, ar, 3, 100);
  f.kernel(0, 13, 6000, 7000, sr, 4, 100);
  f.kernel(0, 7, 7000, 7100, 8888, 5, 100);  // name id not in StringIds: skipped
  f.runtime(100, 7, 900, 920, 1, launch);
  f.runtime(100, 7, 950, 960, 2, launch);
  f.runtime(100, 7, 1200, 1210, 3, launch);
  f.runtime(100, 7, 1500, 1510, 4, launch);
  // device 1: correlation ids repeat per process, the join must keep them apart
  f.kernel(1, 20, 10000, 10500, gemm, 1, 200);
  f.kernel(1, 21, 10600, 11600, ar, 2, 200);
  f.kernel(1, 20, 12000, 12100, gemm, 99, 200);  // no CUDA call recorded for it
  f.runtime(200, 9, 9000, 9010, 1, launch);
  f.runtime(200, 9, 9100, 9110, 2, launch);
  // NVTX on thread (100, 7)
  f.nvtx(100, 7, 500, -1, "start", false, NsysFixture::kMark);
  f.nvtx(100, 7, 800, 1100, "forward");
  f.nvtx(100, 7, 1150, 1300, "nccl:all_reduce, op_id = 5, sizes = [[32, 1, 4096]], input_op_ids = [(4,0)]");
  f.nvtx(100, 7, 1400, 1600, "pp");
  f.nvtx(100, 7, 1450, 1550, "nccl:send 0->1, op_id = 6, sizes = [[8, 1, 4096]]");
  f.nvtx(100, 7, 1700, 1800, "nccl:all_reduce, op_id = 7, sizes = [[32, 1, oops]]");
  f.nvtx(100, 7, 1900, 2000, "optimizer", /*registered=*/true);
  f.exec("INSERT INTO NVTX_EVENTS (start, end, eventType, globalTid, textId) VALUES (2100, 2200, 59, " +
         std::to_string(NsysFixture::global_tid(100, 7)) + ", 9999)");  // text id not in StringIds: skipped
  // NVTX on thread (200, 9)
  f.nvtx(200, 9, 8900, 9050, "forward");
  f.nvtx(200, 9, 9080, 9200, "nccl:all_reduce, op_id = 9, sizes = [[1024]]");
  f.nvtx(200, 9, 9300, 9400, "nccl:barrier");
  f.close();
}

// By value, so that no caller can keep a reference that outlives `d` (g++ 13 -Wdangling-reference).
KernelRow row(const DeviceProfile& d, const std::string& name, std::int64_t stream) {
  for (const auto& r : d.rows)
    if (r.name == name && r.stream == stream) return r;
  throw std::runtime_error("no row " + name + " on stream " + std::to_string(stream));
}

// NCCL's own API ranges with their exported payloads (trace/nccl_nvtx_payload.h): sizes from
// "Message size [bytes]" (and the older "Bytes"), the element count where a kernel inside names the
// datatype and the size is the whole tensor's; ranges without a usable payload are counted only.
TEST(NsysReader, NcclApiRangesGiveSizesFromTheirPayloads) {
  NsysFixture f(tmp_path("nccl_payload.sqlite"));
  const auto ar = f.str("ncclDevKernel_AllReduce_Sum_bf16_RING_LL");
  const auto launch = f.str("cudaLaunchKernel_v7000");
  f.gpu(0, "NVIDIA H200");
  f.kernel(0, 13, 2000, 3000, ar, 1, 100);
  f.runtime(100, 7, 1200, 1210, 1, launch);
  f.kernel(0, 13, 5000, 6000, ar, 2, 100);
  f.runtime(100, 7, 4200, 4210, 2, launch);
  const std::string ar_payload =
      R"({"NCCL communicator ID": 7318924352, "Message size [bytes]": 262144, "Reduction operation": "Sum"})";
  f.nvtx_json(100, 7, 1100, 1300, "ncclAllReduce", ar_payload);
  f.nvtx_json(100, 7, 4100, 4300, "ncclAllReduce", ar_payload);
  f.nvtx_json(100, 7, 1400, 1500, "ncclAllGather", R"({"Message size [bytes]": "1,048,576"})");
  f.nvtx_json(100, 7, 1600, 1700, "ncclSend", R"({"Bytes": 4096, "Peer rank": 1})");
  f.nvtx_json(100, 7, 1800, 1900, "ncclRecv", "");
  f.nvtx_json(100, 7, 2000, 2100, "ncclBroadcast", "not json");
  f.nvtx_json(100, 7, 2200, 2300, "ncclReduce", R"({"Message size [bytes]": -5})");
  f.nvtx_json(100, 7, 2400, 2500, "myAllReduce", R"({"Message size [bytes]": 64})");
  f.close();
  const TraceProfile p = read_nsys_sqlite(f.path(), TraceOptions{});
  EXPECT_EQ(p.nccl_ranges, 7);
  EXPECT_EQ(p.nccl_payload_sizes, 3 + 1);  // both all_reduces, all_gather, send
  ASSERT_EQ(p.devices.size(), 1u);
  std::map<std::string, CollectiveRow> by_op;
  for (const auto& c : p.devices[0].collectives) {
    EXPECT_EQ(c.source, "nccl-nvtx");
    EXPECT_TRUE(by_op.emplace(c.op, c).second) << c.op << " twice";
  }
  ASSERT_EQ(by_op.size(), 3u);
  const CollectiveRow& all_reduce = by_op.at("all_reduce");
  EXPECT_EQ(all_reduce.count, 2);
  EXPECT_EQ(all_reduce.elements, 131072);  // 262144 bytes of bf16, the kernel inside says
  EXPECT_EQ(all_reduce.dtype, "bfloat16");
  EXPECT_EQ(all_reduce.bytes().value(), 262144);
  EXPECT_EQ(by_op.at("all_gather").elements, -1);  // one rank's part: no whole-tensor count
  EXPECT_EQ(by_op.at("all_gather").bytes().value(), 1048576);
  EXPECT_EQ(by_op.at("send").bytes().value(), 4096);
  EXPECT_TRUE(by_op.at("send").dtype.empty());
  std::ostringstream text;
  print_trace_report(text, p, nullptr, 10);
  EXPECT_NE(text.str().find("7 NCCL API ranges (4 with a payload size)"), std::string::npos) << text.str();
}

TEST(NsysReader, BreakdownAndCommunicationShareOfEveryDevice) {
  NsysFixture f(tmp_path("two.sqlite"));
  fill_two_devices(f);
  const TraceProfile p = read_nsys_sqlite(f.path(), TraceOptions{});
  EXPECT_EQ(p.source, "nsys-sqlite");
  EXPECT_EQ(p.format_version, "3.28.1");
  EXPECT_EQ(p.kernel_rows, 7);
  EXPECT_EQ(p.skipped_rows, 2);
  EXPECT_EQ(p.skipped_by_reason.at("kernel shortName id not in StringIds"), 1);
  EXPECT_EQ(p.skipped_by_reason.at("NVTX range text id not in StringIds"), 1);
  EXPECT_TRUE(p.damage.empty());
  ASSERT_EQ(p.devices.size(), 2u);

  const DeviceProfile& d0 = p.devices[0];
  EXPECT_EQ(d0.device, 0);
  EXPECT_EQ(d0.name, "NVIDIA H200");
  EXPECT_EQ(d0.span_ns(), 6000);
  EXPECT_EQ(d0.busy_ns, 5000);  // [1000,5000] + [6000,7000]
  EXPECT_EQ(d0.comm_ns, 3000);  // [2500,4500] + [6000,7000]
  EXPECT_DOUBLE_EQ(d0.share(d0.comm_ns), 0.5);
  EXPECT_EQ(d0.kernels, 4);
  ASSERT_EQ(d0.rows.size(), 3u);
  EXPECT_EQ(d0.rows[0].name, "sm90_gemm_bf16");  // largest share first
  const auto gemm = row(d0, "sm90_gemm_bf16", 7);
  EXPECT_EQ(gemm.count, 2);
  EXPECT_EQ(gemm.total_ns, 4000);
  EXPECT_EQ(gemm.min_ns, 2000);
  EXPECT_EQ(gemm.max_ns, 2000);
  EXPECT_FALSE(gemm.comm);
  EXPECT_NEAR(d0.share(gemm.total_ns), 4000.0 / 6000.0, 1e-12);
  const auto ar = row(d0, "ncclDevKernel_AllReduce_Sum_bf16_RING_LL", 13);
  EXPECT_TRUE(ar.comm);
  EXPECT_EQ(ar.total_ns, 2000);
  EXPECT_EQ(row(d0, "ncclDevKernel_SendRecv", 13).total_ns, 1000);

  const DeviceProfile& d1 = p.devices[1];
  EXPECT_EQ(d1.span_ns(), 2100);
  EXPECT_EQ(d1.busy_ns, 1600);
  EXPECT_EQ(d1.comm_ns, 1000);
  const auto gemm1 = row(d1, "sm90_gemm_bf16", 20);
  EXPECT_EQ(gemm1.count, 2);
  EXPECT_EQ(gemm1.min_ns, 100);
  EXPECT_EQ(gemm1.max_ns, 500);
}

TEST(NsysReader, CollectivesFromNvtxTextsWithDeviceAndDtypeFromTheKernelsInside) {
  NsysFixture f(tmp_path("coll.sqlite"));
  fill_two_devices(f);
  const TraceProfile p = read_nsys_sqlite(f.path(), TraceOptions{});
  EXPECT_EQ(p.nvtx_ranges, 9);
  EXPECT_EQ(p.collective_texts, 5);
  EXPECT_EQ(p.unparsed_texts, 1);
  ASSERT_EQ(p.devices.size(), 2u);
  const auto& c0 = p.devices[0].collectives;
  ASSERT_EQ(c0.size(), 2u);
  EXPECT_EQ(c0[0].op, "all_reduce");
  EXPECT_EQ(c0[0].elements, 32 * 4096);
  EXPECT_EQ(c0[0].dtype, "bfloat16");  // from ncclDevKernel_AllReduce_Sum_bf16_RING_LL launched inside
  EXPECT_EQ(c0[0].bytes().value(), 32 * 4096 * 2);
  EXPECT_EQ(c0[0].count, 1);
  EXPECT_EQ(c0[0].source, "nvtx");
  EXPECT_EQ(c0[1].op, "send");
  EXPECT_EQ(c0[1].elements, 8 * 4096);
  EXPECT_EQ(c0[1].dtype, "");  // SendRecv kernels name no dtype
  EXPECT_FALSE(c0[1].bytes().has_value());
  const auto& c1 = p.devices[1].collectives;
  ASSERT_EQ(c1.size(), 2u);
  EXPECT_EQ(c1[0].op, "all_reduce");
  EXPECT_EQ(c1[0].elements, 1024);
  EXPECT_EQ(c1[1].op, "barrier");  // no kernel inside: the device its process launches on
  EXPECT_EQ(c1[1].elements, -1);
}

TEST(NsysReader, ByNvtxNamesKernelsAfterTheInnermostRangeOfTheLaunchingThread) {
  NsysFixture f(tmp_path("bynvtx.sqlite"));
  fill_two_devices(f);
  TraceOptions o;
  o.by_nvtx = true;
  const TraceProfile p = read_nsys_sqlite(f.path(), o);
  EXPECT_EQ(p.by, "nvtx");
  const DeviceProfile& d0 = p.devices[0];
  const auto fwd = row(d0, "forward", 7);
  EXPECT_TRUE(fwd.nvtx_range);
  EXPECT_EQ(fwd.count, 2);
  EXPECT_EQ(fwd.total_ns, 4000);
  EXPECT_TRUE(row(d0, "nccl:all_reduce, op_id = 5, sizes = [[32, 1, 4096]], input_op_ids = [(4,0)]", 13).comm);
  EXPECT_EQ(row(d0, "nccl:send 0->1, op_id = 6, sizes = [[8, 1, 4096]]", 13).total_ns, 1000);  // innermost, not "pp"
  for (const auto& r : d0.rows) EXPECT_NE(r.name, "pp");
  const DeviceProfile& d1 = p.devices[1];
  EXPECT_EQ(row(d1, "forward", 20).total_ns, 500);        // correlation 1 of pid 200, not pid 100's
  const auto unlaunched = row(d1, "sm90_gemm_bf16", 20);  // no CUDA call found: keeps its name
  EXPECT_FALSE(unlaunched.nvtx_range);
  EXPECT_EQ(unlaunched.total_ns, 100);
  // Totals are the same whichever way rows are named.
  EXPECT_EQ(d0.busy_ns, 5000);
  EXPECT_EQ(d1.comm_ns, 1000);
}

TEST(NsysReader, OlderKernelTableWithDemangledNamesOnlyAndNoEventTypeEnum) {
  NsysFixtureOptions fo;
  fo.short_name = false;
  fo.event_type_enum = false;
  NsysFixture f(tmp_path("old.sqlite"), fo);
  const auto name = f.str("void ncclKernel_AllReduce_RING_LL_Sum_half(ncclDevComm*, unsigned long, ncclWork*)");
  const auto launch = f.str("cudaLaunchKernel_v7000");
  f.kernel(3, 1, 100, 400, name, 1, 50);
  f.runtime(50, 1, 90, 95, 1, launch);
  f.nvtx(50, 1, 80, 120, "nccl:all_reduce, sizes = [[2048]]");
  f.close();
  const TraceProfile p = read_nsys_sqlite(f.path(), TraceOptions{});
  ASSERT_EQ(p.devices.size(), 1u);
  EXPECT_EQ(p.devices[0].device, 3);
  EXPECT_EQ(p.devices[0].comm_ns, 300);
  ASSERT_EQ(p.devices[0].collectives.size(), 1u);
  EXPECT_EQ(p.devices[0].collectives[0].dtype, "half");  // older ncclKernel_*_half naming
  EXPECT_EQ(p.devices[0].collectives[0].bytes().value(), 4096);
  bool fallback_noted = false, enum_noted = false;
  for (const auto& n : p.notes) {
    fallback_noted |= n.find("demangledName") != std::string::npos;
    enum_noted |= n.find("ENUM_NSYS_EVENT_TYPE") != std::string::npos;
  }
  EXPECT_TRUE(fallback_noted);
  EXPECT_TRUE(enum_noted);
}

TEST(NsysReader, ExportWithoutRuntimeOrNvtxStillGivesTheBreakdown) {
  NsysFixtureOptions fo;
  fo.runtime = false;
  fo.nvtx = false;
  NsysFixture f(tmp_path("bare.sqlite"), fo);
  const auto k = f.str("ncclDevKernel_SendRecv");
  f.kernel(0, 1, 0, 10, k, 1, 1);
  f.kernel(0, 1, 20, 30, k, 2, 1);
  f.close();
  TraceOptions o;
  o.by_nvtx = true;
  const TraceProfile p = read_nsys_sqlite(f.path(), o);
  ASSERT_EQ(p.devices.size(), 1u);
  EXPECT_EQ(p.devices[0].comm_ns, 20);
  EXPECT_EQ(row(p.devices[0], "ncclDevKernel_SendRecv", 1).count, 2);  // kept its own name
  bool noted = false;
  for (const auto& n : p.notes) noted |= n.find("NVTX_EVENTS") != std::string::npos;
  EXPECT_TRUE(noted);
}

TEST(NsysReader, ADatabaseThatIsNotAnExportNamesTheMissingTables) {
  const std::string path = tmp_path("other.sqlite");
  {
    NsysFixture f(path);
    f.exec("DROP TABLE CUPTI_ACTIVITY_KIND_KERNEL; DROP TABLE StringIds");
  }
  try {
    (void)read_nsys_sqlite(path, TraceOptions{});
    FAIL() << "no error";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("missing tables: StringIds, CUPTI_ACTIVITY_KIND_KERNEL"), std::string::npos)
        << e.what();
  }
  {
    NsysFixture f(path);
    f.exec("DROP TABLE CUPTI_ACTIVITY_KIND_KERNEL");
  }
  try {
    (void)read_nsys_sqlite(path, TraceOptions{});
    FAIL() << "no error";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("no CUDA kernels"), std::string::npos) << e.what();
  }
}

// A kernel "table" that is a recursive view would be read forever: refused by name before any row is read.
TEST(NsysReader, AKernelTableThatIsAViewIsRefusedNamingIt) {
  const std::string path = tmp_path("view.sqlite");
  {
    NsysFixture f(path);
    f.exec("DROP TABLE CUPTI_ACTIVITY_KIND_KERNEL");
    f.exec(
        "CREATE VIEW CUPTI_ACTIVITY_KIND_KERNEL AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) "
        "SELECT x * 10 AS start, x * 10 + 5 AS end, 0 AS deviceId, 7 AS streamId, 1 AS shortName FROM c");
  }
  try {
    (void)read_nsys_sqlite(path, TraceOptions{});
    FAIL() << "no error";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find(": CUPTI_ACTIVITY_KIND_KERNEL is a view, not a table"), std::string::npos)
        << e.what();
  }
}

TEST(NsysReader, ATruncatedExportReportsDamageOrFailsCleanly) {
  const std::string path = tmp_path("cut.sqlite");
  {
    NsysFixture f(path);
    const auto k = f.str("sm90_gemm_bf16");
    for (int i = 0; i < 3000; ++i) f.kernel(i % 2, 7, i * 100, i * 100 + 50, k, i, 1);
  }
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  const auto size = static_cast<long>(in.tellg());
  ASSERT_EQ(::truncate(path.c_str(), size / 2), 0);
  try {
    const TraceProfile p = read_nsys_sqlite(path, TraceOptions{});
    EXPECT_FALSE(p.damage.empty());
    EXPECT_LT(p.kernel_rows, 3000);
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos);
  }
}

TEST(NsysReader, ChromeTraceHasKernelsRangesProjectionsAndCudaCallsInMicroseconds) {
  NsysFixture f(tmp_path("conv.sqlite"));
  fill_two_devices(f);
  TraceOptions o;
  o.chrome_trace_path = tmp_path("conv.json");
  (void)read_nsys_sqlite(f.path(), o);
  std::ifstream in(o.chrome_trace_path);
  const auto doc = nlohmann::json::parse(in);  // valid JSON, or this throws
  ASSERT_TRUE(doc.at("traceEvents").is_array());
  int kernels = 0, nvtx = 0, marks = 0, api = 0, projected = 0;
  bool gpu0_named = false, forward_projected = false;
  for (const auto& e : doc["traceEvents"]) {
    ASSERT_TRUE(e.contains("ph") && e.contains("pid") && e.contains("tid") && e.contains("name"));
    const std::string ph = e["ph"], cat = e.value("cat", "");
    if (ph == "M") {
      if (e["name"] == "process_name" && e["pid"] == kGpuPidBase && e["args"]["name"] == "GPU 0 (NVIDIA H200)")
        gpu0_named = true;
      continue;
    }
    ASSERT_TRUE(e.contains("ts"));
    if (cat == "kernel") {
      ++kernels;
      if (e["args"]["device"] == 0 && e["ts"] == 1.0) {
        EXPECT_DOUBLE_EQ(e["dur"].get<double>(), 2.0);
      }
    }
    if (cat == "nvtx" && ph == "X") ++nvtx;
    if (cat == "nvtx" && ph == "i") ++marks;
    if (cat == "cuda-api") ++api;
    if (cat == "nvtx-kernel") {
      ++projected;
      if (e["name"] == "forward" && e["pid"] == kGpuPidBase) {
        forward_projected = true;
        EXPECT_DOUBLE_EQ(e["ts"].get<double>(), 1.0);   // first kernel launched inside starts at 1000 ns
        EXPECT_DOUBLE_EQ(e["dur"].get<double>(), 4.0);  // last one ends at 5000 ns
      }
    }
  }
  EXPECT_EQ(kernels, 7);
  EXPECT_EQ(nvtx, 10);  // 9 ranges with text + the one whose text id is missing (unnamed)
  EXPECT_EQ(marks, 1);
  EXPECT_EQ(api, 6);
  EXPECT_EQ(projected, 6);  // forward x2, the two all_reduces, pp and send (ranges with kernels inside)
  EXPECT_TRUE(gpu0_named);
  EXPECT_TRUE(forward_projected);

  // --activity and --nvtx-prefix filter.
  o.activities = parse_activities("--activity", "nvtx");
  o.nvtx_prefixes = {"nccl:"};
  (void)read_nsys_sqlite(f.path(), o);
  std::ifstream in2(o.chrome_trace_path);
  const auto doc2 = nlohmann::json::parse(in2);
  int events = 0;
  for (const auto& e : doc2["traceEvents"]) {
    if (e["ph"] == "M") continue;
    ++events;
    EXPECT_EQ(e["cat"], "nvtx");
    EXPECT_EQ(e["name"].get<std::string>().rfind("nccl:", 0), 0u);
  }
  EXPECT_EQ(events, 5);
}

// Rows with end < start (a negative duration) are skipped and counted.
TEST(NsysReader, RowsWithEndBeforeStartOrANegativeStartAreSkippedAndCounted) {
  NsysFixture f(tmp_path("bad_times.sqlite"));
  const auto gemm = f.str("sm90_gemm_bf16");
  const auto ar = f.str("ncclDevKernel_AllReduce_Sum_bf16_RING_LL");
  f.kernel(0, 7, 1000, 3000, gemm, 1, 100);
  f.kernel(0, 13, 2000, 2500, ar, 2, 100);
  f.kernel(0, 7, 5000, 4000, gemm, 3, 100);        // end before start
  f.kernel(0, 13, -1000000000, 2000, ar, 4, 100);  // negative start
  f.kernel(-3, 7, 1000, 2000, gemm, 5, 100);       // no such device
  f.nvtx(100, 100, 900, 800, "backwards range");
  f.close();
  TraceOptions o;
  o.by_nvtx = true;
  for (const bool by_nvtx : {false, true}) {
    o.by_nvtx = by_nvtx;
    const TraceProfile p = read_nsys_sqlite(f.path(), o);
    EXPECT_EQ(p.kernel_rows, 2);
    EXPECT_EQ(p.skipped_by_reason.at("kernel row with end before start"), 1);
    EXPECT_EQ(p.skipped_by_reason.at("kernel row with a negative start"), 1);
    EXPECT_EQ(p.skipped_by_reason.at("kernel row with deviceId out of range"), 1);
    EXPECT_EQ(p.skipped_by_reason.at("NVTX range with end before start, or a negative start"), 1);
    EXPECT_EQ(p.skipped_rows, 4);
    ASSERT_EQ(p.devices.size(), 1u);
    const DeviceProfile& d = p.devices[0];
    EXPECT_EQ(d.span_ns(), 2000);
    EXPECT_EQ(d.comm_ns, 500);
    for (const auto& r : d.rows) EXPECT_GE(r.min_ns, 0) << r.name;
    EXPECT_LE(d.share(d.busy_ns), 1.0);
  }
}

TEST(NsysReader, ReportsKernelRowsReadOfTheTable) {
  NsysFixture f(tmp_path("progress.sqlite"));
  const auto gemm = f.str("sm90_gemm_bf16");
  // 140000 kernels on one device, 1 us apart (the trace benchmark's recipe, smaller).
  f.exec(
      "WITH RECURSIVE seq(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM seq WHERE i < 139999) "
      "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL (start, end, deviceId, contextId, streamId, correlationId, globalPid, "
      "demangledName, shortName, registersPerThread, gridX, gridY, gridZ, blockX, blockY, blockZ, staticSharedMemory, "
      "dynamicSharedMemory, localMemoryPerThread, localMemoryTotal, gridId) SELECT i * 1000, i * 1000 + 500, 0, 1, 7, "
      "i, NULL, " +
      std::to_string(gemm) + ", " + std::to_string(gemm) + ", 32, 1, 1, 1, 128, 1, 1, 0, 0, 0, 0, i FROM seq");
  f.close();
  std::vector<std::pair<std::int64_t, std::int64_t> > calls;
  TraceOptions o;
  o.progress = [&](const std::string& unit, std::int64_t done, std::int64_t total) {
    EXPECT_EQ(unit, "kernel row");
    calls.emplace_back(done, total);
  };
  const TraceProfile p = read_nsys_sqlite(f.path(), o);
  EXPECT_EQ(p.kernel_rows, 140000);
  // Every 65536 rows, then the end.
  ASSERT_EQ(calls.size(), 3u);
  EXPECT_EQ(calls[0], std::make_pair(std::int64_t{65536}, std::int64_t{140000}));
  EXPECT_EQ(calls[1], std::make_pair(std::int64_t{131072}, std::int64_t{140000}));
  EXPECT_EQ(calls[2], std::make_pair(std::int64_t{140000}, std::int64_t{140000}));
  std::remove(f.path().c_str());
}

#else

TEST(NsysReader, BuiltWithoutSqliteSaysSo) {
  try {
    (void)read_nsys_sqlite("x.sqlite", TraceOptions{});
    FAIL() << "no error";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("without SQLite"), std::string::npos);
  }
  EXPECT_FALSE(nsys_reader_available());
}

#endif

}  // namespace
}  // namespace pipebench
