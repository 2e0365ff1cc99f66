// SPDX-License-Identifier: Apache-2.0
// World over the TCP rendezvous.
#include "launch/tcp_world.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <utility>

#include "core/error.h"
#include "launch/launch_env.h"

namespace pipebench {
namespace {

template <typename T>
std::string bytes_of(T v) {
  std::string s(sizeof v, '\0');
  std::memcpy(s.data(), &v, sizeof v);
  return s;
}

template <typename T>
std::vector<T> values_of(const std::vector<std::string>& all) {
  std::vector<T> out;
  for (const auto& s : all) {
    T v{};
    std::memcpy(&v, s.data(), std::min(sizeof v, s.size()));
    out.push_back(v);
  }
  return out;
}

class TcpWorld final : public World {
 public:
  TcpWorld(const LaunchEnv& launch, RendezvousConfig config)
      : host_(this_host_name()), rendezvous_(std::move(config), host_) {
    // Node-local rank and count: torchrun's where it says, else the ranks on this host (as MPI's
    // MPI_COMM_TYPE_SHARED split would count them).
    const auto hosts = rendezvous_.all_gather(host_);
    for (int r = 0; r < size(); ++r) {
      if (hosts[static_cast<std::size_t>(r)] != host_) continue;
      if (r < rank()) ++local_rank_;
      ++local_size_;
    }
    if (launch.local_rank >= 0) local_rank_ = launch.local_rank;
    if (launch.local_size > 0) local_size_ = launch.local_size;
  }

  int rank() const override { return rendezvous_.rank(); }
  int size() const override { return rendezvous_.size(); }
  int local_rank() const override { return local_rank_; }
  int local_size() const override { return local_size_; }
  const std::string& host() const override { return host_; }
  bool has_mpi() const override { return false; }
  bool tcp_rendezvous() const override { return true; }
  std::string mpi_version() const override { return "none (torchrun launch: TCP rendezvous)"; }

  void barrier() const override { (void)rendezvous_.all_gather({}); }
  double max(double v) const override {
    const auto all = values_of<double>(rendezvous_.all_gather(bytes_of(v)));
    return *std::max_element(all.begin(), all.end());
  }
  double min(double v) const override {
    const auto all = values_of<double>(rendezvous_.all_gather(bytes_of(v)));
    return *std::min_element(all.begin(), all.end());
  }
  std::uint64_t sum(std::uint64_t v) const override {
    std::uint64_t total = 0;
    for (auto x : values_of<std::uint64_t>(rendezvous_.all_gather(bytes_of(v)))) total += x;
    return total;
  }
  std::uint64_t min_u64(std::uint64_t v) const override {
    const auto all = values_of<std::uint64_t>(rendezvous_.all_gather(bytes_of(v)));
    return *std::min_element(all.begin(), all.end());
  }
  bool all(bool ok) const override {
    const auto every = rendezvous_.all_gather(ok ? "1" : "0");
    return std::all_of(every.begin(), every.end(), [](const std::string& s) { return s == "1"; });
  }
  std::vector<std::string> all_gather(const std::string& s) const override { return rendezvous_.all_gather(s); }
  std::string broadcast(const std::string& bytes, int root) const override {
    return rendezvous_.all_gather(rank() == root ? bytes : std::string())[static_cast<std::size_t>(root)];
  }
  // The other ranks see this rank's connections close and stop with a message naming it.
  [[noreturn]] void abort(int exit_code) const override { std::_Exit(exit_code); }

 private:
  std::string host_;
  TcpRendezvous rendezvous_;
  int local_rank_ = 0, local_size_ = 0;
};

}  // namespace

std::unique_ptr<World> tcp_world_from_env(const RendezvousEnv& getenv) {
  if (!rendezvous_requested(getenv)) return nullptr;
  const auto launch = launch_from_env(getenv);
  // Under mpirun, srun or a PMIx launcher MPI forms the world, whatever torchrun-style variables leak in.
  if (!launch || launch->launcher != "torchrun" || getenv(kPmixRankVariable) != nullptr) return nullptr;
  return std::make_unique<TcpWorld>(*launch, rendezvous_from_env(getenv, launch->rank, launch->size));
}

bool tcp_rendezvous_launch(const RendezvousEnv& getenv) {
  if (!rendezvous_requested(getenv)) return false;
  try {
    const auto launch = launch_from_env(getenv);
    return launch && launch->launcher == "torchrun" && getenv(kPmixRankVariable) == nullptr;
  } catch (const UsageError&) {
    return false;
  }
}

}  // namespace pipebench
