// SPDX-License-Identifier: Apache-2.0
// Who am I: the process's place in the job (MPI rank and size, node-local rank, host), and the few
// cross-process operations the harness needs. Without MPI (or outside mpirun) it is one process; under a
// torchrun-style launch without MPI (MASTER_ADDR, MASTER_PORT) the ranks meet over TCP (launch/tcp_world.h).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace pipebench {

class World {
 public:
  // The TCP world of a torchrun-style launch (launch/tcp_world.h); else initialises MPI when pipebench was
  // built with it (MPI_Init_thread), finalised in the destructor. Throws UsageError for a bad rendezvous
  // variable, Error when MPI or the rendezvous fails.
  static std::unique_ptr<World> create(int* argc, char*** argv);
  virtual ~World() = default;

  [[nodiscard]] virtual int rank() const = 0;
  [[nodiscard]] virtual int size() const = 0;
  // Rank and count among the processes on this node (MPI_Comm_split_type SHARED).
  [[nodiscard]] virtual int local_rank() const = 0;
  [[nodiscard]] virtual int local_size() const = 0;
  [[nodiscard]] virtual const std::string& host() const = 0;
  [[nodiscard]] virtual bool has_mpi() const = 0;
  // True when the ranks meet over the TCP rendezvous of a torchrun-style launch (no MPI: the MPI backend
  // cannot run).
  [[nodiscard]] virtual bool tcp_rendezvous() const { return false; }
  // "Open MPI v4.1.4, ..." or "none".
  [[nodiscard]] virtual std::string mpi_version() const = 0;
  // The allow-listed environment as the process started, read before MPI_Init (a singleton MPI_Init
  // adds OMPI_*/PMIX_* variables of its own, which describe no launch).
  [[nodiscard]] const std::map<std::string, std::string>& launch_environment() const { return environment_; }

  virtual void barrier() const = 0;
  [[nodiscard]] virtual double max(double v) const = 0;
  [[nodiscard]] virtual double min(double v) const = 0;
  [[nodiscard]] virtual std::uint64_t sum(std::uint64_t v) const = 0;
  [[nodiscard]] virtual std::uint64_t min_u64(std::uint64_t v) const = 0;
  // True on every rank iff ok is true on every rank.
  [[nodiscard]] virtual bool all(bool ok) const = 0;
  // Every rank's string, in rank order, on every rank.
  [[nodiscard]] virtual std::vector<std::string> all_gather(const std::string& s) const = 0;
  // root's bytes on every rank.
  [[nodiscard]] virtual std::string broadcast(const std::string& bytes, int root) const = 0;
  // Ends every process of the job (MPI_Abort) or this one; never returns.
  [[noreturn]] virtual void abort(int exit_code) const = 0;

  // "rank R on host H", for error messages.
  [[nodiscard]] std::string where() const { return "rank " + std::to_string(rank()) + " on host " + host(); }

 protected:
  World();

 private:
  std::map<std::string, std::string> environment_;
};

}  // namespace pipebench
