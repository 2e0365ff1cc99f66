// SPDX-License-Identifier: Apache-2.0
// The transport the ops run on. Ops and the harness see only this interface; NcclBackend (device
// buffers, CUDA streams and events) and MpiBackend (host buffers, steady clock) implement it.
// One process may drive several ranks of the communicator ("local" ranks, nccl-tests' -g).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/data_layout.h"
#include "core/dtype.h"
#include "core/element.h"

namespace pipebench {

// Send and receive buffers, one pair per local rank, owned by the backend that made them.
class Buffers {
 public:
  virtual ~Buffers() = default;
  [[nodiscard]] virtual void* send(int local) const = 0;
  [[nodiscard]] virtual void* recv(int local) const = 0;
  [[nodiscard]] virtual std::size_t send_bytes() const = 0;
  [[nodiscard]] virtual std::size_t recv_bytes() const = 0;
};

// One run of a batch on this process: from the first op's start to the last one's completion (CUDA
// events or the steady clock), and the host time spent issuing it (nccl-tests -C "cputime").
struct BatchTime {
  double elapsed_s = 0;
  double enqueue_s = 0;
};

// A batch of ops ready to be timed again and again (with -G: captured once into CUDA graphs).
class Batch {
 public:
  virtual ~Batch() = default;
  // Synchronises, waits at a barrier of all processes, runs the batch and returns its duration on this
  // process (the maximum over local ranks). Not reduced across processes.
  [[nodiscard]] virtual BatchTime run() = 0;
};

// Communication issued and not waited for (Backend::group_end_async): what torch.distributed's
// batch_isend_irecv returns and Megatron's overlapped schedules wait on later. Destroyed unwaited, it
// leaves the calls to the backend (a later synchronize() completes them).
class PendingComm {
 public:
  virtual ~PendingComm() = default;
  // One progress pass that never blocks (MPI: MPI_Testall moves the transfers; NCCL: cudaEventQuery);
  // true once every call of the group has completed.
  [[nodiscard]] virtual bool test() = 0;
  // Returns when every call of the group has completed.
  virtual void wait() = 0;
};

// How buffers are allocated (--alloc) and registered with the communicator (-R). The MPI backend has
// host buffers and reads neither.
enum class BufferAlloc {
  kDefault,  // ncclMemAlloc where NCCL has it, else cudaMalloc (nccl-tests' choice)
  kCuda,     // cudaMalloc
  kNcclMem,  // ncclMemAlloc (cuMem), an error where it fails
};
struct BufferOptions {
  BufferAlloc alloc = BufferAlloc::kDefault;
  int registration = 0;  // 0 none, 1 ncclCommRegister, 2 ncclCommWindowRegister (symmetric)
};

// One local rank's device as the report shows it ("NVIDIA H200 [0000:00:06.0]", or "host").
struct DeviceDescription {
  int rank = 0;
  int device = -1;
  std::string bus_id;
  std::string model;
};

// Which transport: a type, so that callers branch on it rather than on name(). kAuto only ever names a
// choice still to be made (--backend auto), never a built backend.
enum class BackendKind { kAuto, kNccl, kMpi };

class Backend {
 public:
  virtual ~Backend() = default;

  [[nodiscard]] virtual std::string_view name() const = 0;
  [[nodiscard]] virtual BackendKind kind() const = 0;
  [[nodiscard]] virtual int nranks() const = 0;
  [[nodiscard]] virtual int nlocal() const = 0;
  // Rank in this communicator of local rank `local`.
  [[nodiscard]] virtual int rank_of(int local) const = 0;
  // The global rank (in the whole job) of a rank of this communicator.
  [[nodiscard]] virtual int global_rank(int comm_rank) const = 0;
  // Bytes that can still be allocated for buffers per local rank (the minimum over local devices).
  [[nodiscard]] virtual std::size_t free_memory_bytes() const = 0;
  [[nodiscard]] virtual std::vector<DeviceDescription> devices() const = 0;
  // Versions for the report: e.g. {"cuda_driver": "13000", "nccl": "2.28.3"}.
  [[nodiscard]] virtual std::map<std::string, std::string> versions() const = 0;
  [[nodiscard]] virtual bool supports_graphs() const = 0;

  // Collective over the communicator when options.registration is 2.
  [[nodiscard]] virtual std::unique_ptr<Buffers> allocate(std::size_t send_bytes, std::size_t recv_bytes,
                                                          const BufferOptions& options) = 0;

  // Communication for local rank `local`, with ranks of this communicator. Calls between
  // group_begin() and group_end() form one group (ncclGroupStart/End; MPI non-blocking + wait).
  virtual void group_begin() = 0;
  virtual void group_end() = 0;
  // Ends the group without waiting for it: its calls complete in the background until the handle's
  // wait(). group_end() cannot serve here on MPI, where it waits for the group's requests; replay needs
  // it for Megatron's asynchronous P2P, which must keep moving while the rank computes (it polls test()).
  // NCCL: ncclGroupEnd, then an event on each local stream.
  [[nodiscard]] virtual std::unique_ptr<PendingComm> group_end_async() = 0;
  virtual void all_reduce(int local, const void* send, void* recv, std::size_t count, DType t, RedOp op) = 0;
  virtual void all_gather(int local, const void* send, void* recv, std::size_t count_per_rank, DType t) = 0;
  virtual void reduce_scatter(int local, const void* send, void* recv, std::size_t count_per_rank, DType t,
                              RedOp op) = 0;
  virtual void broadcast(int local, const void* send, void* recv, std::size_t count, DType t, int root) = 0;
  // recv holds count_per_peer elements from every rank, in rank order; send the same for every rank.
  virtual void all_to_all(int local, const void* send, void* recv, std::size_t count_per_peer, DType t) = 0;
  // recv is used on the root only; send == recv is in place.
  virtual void reduce(int local, const void* send, void* recv, std::size_t count, DType t, RedOp op, int root) = 0;
  // recv (nranks blocks) is used on the root only; in place when send == recv + rank * block.
  virtual void gather(int local, const void* send, void* recv, std::size_t count_per_rank, DType t, int root) = 0;
  // send (nranks blocks) is used on the root only; in place when recv == send + rank * block.
  virtual void scatter(int local, const void* send, void* recv, std::size_t count_per_rank, DType t, int root) = 0;
  virtual void send(int local, const void* buf, std::size_t count, DType t, int peer) = 0;
  virtual void recv(int local, void* buf, std::size_t count, DType t, int peer) = 0;
  // Waits until everything issued has completed.
  virtual void synchronize() = 0;

  // REQUIRES: issue_one issues one op for every local rank (grouped). With graph, supports_graphs().
  [[nodiscard]] virtual std::unique_ptr<Batch> prepare_batch(std::function<void()> issue_one, int ops, bool graph) = 0;

  // Data check helpers, run outside the timed batches.
  virtual void fill(const Buffers& b, int local, const FillRegion& region, const Pattern& p, DType t) = 0;
  [[nodiscard]] virtual std::uint64_t count_wrong(const Buffers& b, int local, const CheckRegion& region,
                                                  const Pattern& p, DType t) = 0;

  // Collective over every process of the job: a communicator of the given ranks of this one
  // (ncclCommSplit / MPI_Comm_split). Processes with no member get a backend with nlocal() == 0.
  // Processes may pass different, disjoint lists (--split: concurrent groups): each list becomes its own
  // communicator. REQUIRES: members sorted, unique, in range; a process passes the list holding its ranks.
  [[nodiscard]] virtual std::unique_ptr<Backend> split(const std::vector<int>& members) = 0;
};

}  // namespace pipebench
