// SPDX-License-Identifier: Apache-2.0
// Which CUDA device each GPU of a process drives, from its node-local rank, and --gpus: the devices a
// node's processes may use, named by CUDA index, UUID or PCI bus id.
#pragma once

#include <string>
#include <vector>

namespace pipebench {

// The device index for local GPU `local` of a process driving `gpus_per_process` GPUs:
// local_rank * gpus + local when the node's processes all see every GPU (nccl-tests' rule), or
// `local` when each process sees exactly its own GPUs (CUDA_VISIBLE_DEVICES per rank, where
// nccl-tests fails with "invalid device ordinal"). Throws LocalUsageError with the numbers otherwise.
[[nodiscard]] int pick_device(int local, int gpus_per_process, int visible, int local_rank, int local_size,
                              const std::string& host);

// How a CUDA device can be named: its UUID as nvidia-smi -L prints it ("GPU-" then 8-4-4-4-12 hex digits)
// and its PCI bus id ("0000:17:00.0", cudaDeviceGetPCIBusId). Index = position in the list.
struct GpuIdentity {
  std::string uuid;
  std::string bus_id;
};

// --gpus LIST: comma-separated CUDA indices ("0,1"), UUIDs ("GPU-5a3c...") or PCI bus ids ("17:00.0",
// "0000:17:00.0", nvidia-smi's "00000000:17:00.0"), mixed as wished. Checks the form only, so that a typo
// stops the run before any device is touched: throws UsageError "--gpus 'ENTRY': ..." for an empty,
// malformed or repeated entry.
[[nodiscard]] std::vector<std::string> parse_gpu_list(const std::string& text);

// The CUDA indices of `entries` (parse_gpu_list's) among `devices`, the devices this process sees.
// Throws LocalUsageError naming the entry and the host for an index out of range, a UUID or bus id no
// device has, or two entries naming one device.
[[nodiscard]] std::vector<int> resolve_gpu_list(const std::vector<std::string>& entries,
                                                const std::vector<GpuIdentity>& devices, const std::string& host);

// pick_device over the --gpus list (resolve_gpu_list's indices): the list is the node's pool of devices,
// shared out by local rank as the visible devices are without it (each process takes -g of them in turn,
// or, when the list has exactly -g, every process takes those). An empty list: pick_device over `visible`.
// Throws LocalUsageError naming --gpus and -g when the list cannot serve the node's processes.
[[nodiscard]] int pick_listed_device(int local, int gpus_per_process, const std::vector<int>& listed, int visible,
                                     int local_rank, int local_size, const std::string& host);

}  // namespace pipebench
