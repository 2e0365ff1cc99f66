// SPDX-License-Identifier: Apache-2.0
// World over MPI_COMM_WORLD (when built with MPI), or a single process.
#include "launch/world.h"

#include <unistd.h>

#include <cstdlib>
#include <stdexcept>

#include "core/environment.h"
#include "core/error.h"
#include "launch/launch_env.h"
#include "launch/tcp_world.h"

#if PB_HAVE_MPI
#include "launch/mpi_check.h"
#endif

namespace pipebench {
namespace {

class SingleWorld final : public World {
 public:
  SingleWorld() : host_(this_host_name()) {}
  int rank() const override { return 0; }
  int size() const override { return 1; }
  int local_rank() const override { return 0; }
  int local_size() const override { return 1; }
  const std::string& host() const override { return host_; }
  bool has_mpi() const override { return false; }
  std::string mpi_version() const override { return "none (built without MPI)"; }
  void barrier() const override {}
  double max(double v) const override { return v; }
  double min(double v) const override { return v; }
  std::uint64_t sum(std::uint64_t v) const override { return v; }
  std::uint64_t min_u64(std::uint64_t v) const override { return v; }
  bool all(bool ok) const override { return ok; }
  std::vector<std::string> all_gather(const std::string& s) const override { return {s}; }
  std::string broadcast(const std::string& bytes, int) const override { return bytes; }
  [[noreturn]] void abort(int exit_code) const override { std::_Exit(exit_code); }

 private:
  std::string host_;
};

#if PB_HAVE_MPI

class MpiWorld final : public World {
 public:
  MpiWorld(int* argc, char*** argv) : host_(this_host_name()) {
    int provided = 0;
    if (MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
      throw Error("MPI_Init_thread failed on host " + host_);
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
    check_mpi(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node_),
              "MPI_Comm_split_type", where());
    MPI_Comm_rank(node_, &local_rank_);
    MPI_Comm_size(node_, &local_size_);
  }
  ~MpiWorld() override {
    MPI_Comm_free(&node_);
    MPI_Finalize();
  }
  MpiWorld(const MpiWorld&) = delete;
  MpiWorld& operator=(const MpiWorld&) = delete;

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  int local_rank() const override { return local_rank_; }
  int local_size() const override { return local_size_; }
  const std::string& host() const override { return host_; }
  bool has_mpi() const override { return true; }
  std::string mpi_version() const override {
    char text[MPI_MAX_LIBRARY_VERSION_STRING] = {};
    int len = 0;
    MPI_Get_library_version(text, &len);
    std::string s(text, static_cast<std::size_t>(len));
    const auto cut = s.find_first_of(",\n");
    return cut == std::string::npos ? s : s.substr(0, cut);
  }

  void barrier() const override { check_mpi(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier", where()); }
  double max(double v) const override { return reduce(v, MPI_DOUBLE, MPI_MAX); }
  double min(double v) const override { return reduce(v, MPI_DOUBLE, MPI_MIN); }
  std::uint64_t sum(std::uint64_t v) const override { return reduce(v, MPI_UINT64_T, MPI_SUM); }
  std::uint64_t min_u64(std::uint64_t v) const override { return reduce(v, MPI_UINT64_T, MPI_MIN); }
  bool all(bool ok) const override { return reduce(ok ? 1 : 0, MPI_INT, MPI_LAND) != 0; }
  std::vector<std::string> all_gather(const std::string& s) const override {
    int len = static_cast<int>(s.size());
    std::vector<int> lens(static_cast<std::size_t>(size_));
    check_mpi(MPI_Allgather(&len, 1, MPI_INT, lens.data(), 1, MPI_INT, MPI_COMM_WORLD), "MPI_Allgather", where());
    std::vector<int> displs(lens.size());
    int total = 0;
    for (std::size_t i = 0; i < lens.size(); ++i) {
      displs[i] = total;
      total += lens[i];
    }
    std::string all(static_cast<std::size_t>(total), '\0');
    check_mpi(MPI_Allgatherv(s.data(), len, MPI_CHAR, all.data(), lens.data(), displs.data(), MPI_CHAR, MPI_COMM_WORLD),
              "MPI_Allgatherv", where());
    std::vector<std::string> out;
    for (std::size_t i = 0; i < lens.size(); ++i) {
      out.push_back(all.substr(static_cast<std::size_t>(displs[i]), static_cast<std::size_t>(lens[i])));
    }
    return out;
  }
  std::string broadcast(const std::string& bytes, int root) const override {
    int len = static_cast<int>(bytes.size());
    check_mpi(MPI_Bcast(&len, 1, MPI_INT, root, MPI_COMM_WORLD), "MPI_Bcast", where());
    std::string out = rank_ == root ? bytes : std::string(static_cast<std::size_t>(len), '\0');
    check_mpi(MPI_Bcast(out.data(), len, MPI_CHAR, root, MPI_COMM_WORLD), "MPI_Bcast", where());
    return out;
  }
  [[noreturn]] void abort(int exit_code) const override {
    MPI_Abort(MPI_COMM_WORLD, exit_code);
    std::_Exit(exit_code);
  }

 private:
  template <typename T>
  T reduce(T v, MPI_Datatype type, MPI_Op op) const {
    T out{};
    check_mpi(MPI_Allreduce(&v, &out, 1, type, op, MPI_COMM_WORLD), "MPI_Allreduce", where());
    return out;
  }

  std::string host_;
  int rank_ = 0, size_ = 1, local_rank_ = 0, local_size_ = 1;
  MPI_Comm node_ = MPI_COMM_NULL;
};

#endif

}  // namespace

World::World() : environment_(allowed_environment()) {}

std::unique_ptr<World> World::create(int* argc, char*** argv) {
  if (auto tcp = tcp_world_from_env([](const char* name) { return static_cast<const char*>(std::getenv(name)); })) {
    return tcp;
  }
#if PB_HAVE_MPI
  return std::make_unique<MpiWorld>(argc, argv);
#else
  (void)argc;
  (void)argv;
  return std::make_unique<SingleWorld>();
#endif
}

}  // namespace pipebench
