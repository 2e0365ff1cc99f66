// SPDX-License-Identifier: Apache-2.0
#include "launch/gpu_assignment.h"

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "core/error.h"

namespace pipebench {
namespace {

TEST(PickDevice, ProcessesSeeingAllGpusTakeConsecutiveBlocks) {
  EXPECT_EQ(pick_device(0, 1, 8, 3, 8, "n"), 3);
  EXPECT_EQ(pick_device(1, 2, 8, 2, 4, "n"), 5);
  EXPECT_EQ(pick_device(0, 8, 8, 0, 1, "n"), 0);
}

TEST(PickDevice, ProcessesSeeingOnlyTheirOwnGpuUseIt) {
  // CUDA_VISIBLE_DEVICES per rank: rank 5 of 8 sees one GPU, index 0 (no "invalid device ordinal").
  EXPECT_EQ(pick_device(0, 1, 1, 5, 8, "n"), 0);
  EXPECT_EQ(pick_device(1, 2, 2, 3, 4, "n"), 1);
}

TEST(PickDevice, TooManyGpusIsBadInputWithTheNumbers) {
  try {
    (void)pick_device(0, 2, 1, 0, 1, "node7");
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_STREQ(e.what(), "-g 2: only 1 GPU is visible on host node7");
  }
  EXPECT_THROW((void)pick_device(0, 1, 3, 0, 4, "n"), LocalUsageError);  // 4 ranks, 3 shared GPUs
}

// A made-up node of three GPUs, as cudaGetDeviceProperties and cudaDeviceGetPCIBusId name them.
std::vector<GpuIdentity> fake_devices() {
  return {{"GPU-5a3c0e1f-1111-2222-3333-444455556666", "0000:17:00.0"},
          {"GPU-0badc0de-aaaa-bbbb-cccc-ddddeeeeffff", "0000:65:00.0"},
          {"GPU-feedface-0000-1111-2222-333344445555", "0001:ca:00.0"}};
}

std::string usage_error(const std::function<void()>& f) {
  try {
    f();
  } catch (const UsageError& e) {
    return e.what();
  }
  return "no error";
}

TEST(GpuList, IndicesUuidsAndBusIdsNameTheSameDevices) {
  const auto devices = fake_devices();
  EXPECT_EQ(resolve_gpu_list(parse_gpu_list("2,0"), devices, "n"), (std::vector<int>{2, 0}));
  EXPECT_EQ(resolve_gpu_list(parse_gpu_list("GPU-0BADC0DE-aaaa-bbbb-cccc-ddddeeeeffff"), devices, "n"),
            (std::vector<int>{1}));
  // With and without the domain, nvidia-smi's 8 domain digits, any case.
  EXPECT_EQ(resolve_gpu_list(parse_gpu_list("65:00.0,0000:17:00.0,00000001:CA:00.0"), devices, "n"),
            (std::vector<int>{1, 0, 2}));
  EXPECT_EQ(resolve_gpu_list(parse_gpu_list("1,GPU-feedface-0000-1111-2222-333344445555,17:00.0"), devices, "n"),
            (std::vector<int>{1, 2, 0}));
}

TEST(GpuList, MalformedEntriesAreOneLineNamingTheEntry) {
  EXPECT_EQ(
      usage_error([] { (void)parse_gpu_list("0,gpu0"); }),
      "--gpus 'gpu0': not a CUDA index (0), a UUID (GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx, nvidia-smi -L) or a "
      "PCI bus id (0000:17:00.0)");
  for (const char* bad : {"", ",", "0,,1", "0,", "-1", "GPU-5a3c0e1f", "17:00", "17:00.8", "0x1", "1 "}) {
    EXPECT_NE(usage_error([&] { (void)parse_gpu_list(bad); }).rfind("--gpus '", 0), std::string::npos) << bad;
  }
  EXPECT_EQ(usage_error([] { (void)parse_gpu_list("1,1"); }), "--gpus '1': given twice");
  EXPECT_EQ(usage_error([] { (void)parse_gpu_list("17:00.0,0000:17:00.0"); }), "--gpus '0000:17:00.0': given twice");
}

TEST(GpuList, EntriesNoVisibleGpuHasNameTheHost) {
  const auto devices = fake_devices();
  EXPECT_EQ(usage_error([&] { (void)resolve_gpu_list({"3"}, devices, "node7"); }),
            "--gpus '3': no such GPU among the 3 visible on host node7");
  EXPECT_EQ(usage_error([&] { (void)resolve_gpu_list({"GPU-00000000-0000-0000-0000-000000000000"}, devices, "n"); }),
            "--gpus 'GPU-00000000-0000-0000-0000-000000000000': no such GPU among the 3 visible on host n");
  EXPECT_EQ(usage_error([&] { (void)resolve_gpu_list({"b3:00.0"}, devices, "n"); }),
            "--gpus 'b3:00.0': no such GPU among the 3 visible on host n");
  EXPECT_EQ(usage_error([&] {
              (void)resolve_gpu_list({"0", "17:00.0"}, devices, "n");
            }),
            "--gpus '17:00.0': names GPU 0 of host n a second time");
  EXPECT_THROW((void)resolve_gpu_list({"0"}, {}, "n"), LocalUsageError);
}

TEST(GpuList, TheListIsTheNodesPoolSharedOutByLocalRank) {
  const std::vector<int> listed = {6, 4, 2, 0};
  // 2 processes x -g 2 take the list in turn; 4 processes x -g 1 one each.
  EXPECT_EQ(pick_listed_device(0, 2, listed, 8, 1, 2, "n"), 2);
  EXPECT_EQ(pick_listed_device(1, 2, listed, 8, 1, 2, "n"), 0);
  EXPECT_EQ(pick_listed_device(0, 1, listed, 8, 3, 4, "n"), 0);
  // A list of exactly -g: every process drives those (one process per node, or per-rank lists).
  EXPECT_EQ(pick_listed_device(1, 2, {5, 3}, 8, 3, 4, "n"), 3);
  // No list: nccl-tests' rule over the visible devices.
  EXPECT_EQ(pick_listed_device(0, 1, {}, 8, 3, 8, "n"), 3);
  EXPECT_EQ(usage_error([] {
              (void)pick_listed_device(0, 2, {1, 2, 3}, 8, 0, 2, "node7");
            }),
            "--gpus: lists 3 GPUs for the 2 processes on host node7 driving -g 2 each (list 4, or exactly 2 for every "
            "process)");
}

}  // namespace
}  // namespace pipebench
