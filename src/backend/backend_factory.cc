// SPDX-License-Identifier: Apache-2.0
// Backend factory: the PB_HAVE_* switches of the build live here and nowhere else.
#include "backend/backend_factory.h"

#include <cstdlib>
#include <iostream>

#include "core/error.h"

#if PB_HAVE_NCCL
#include "backend/nccl_backend.h"
#endif
#if PB_HAVE_MPI
#include "backend/mpi_backend.h"
#endif

namespace pipebench {

BackendKind parse_backend_kind(std::string_view flag, std::string_view text) {
  if (text == "auto") return BackendKind::kAuto;
  if (text == "nccl") return BackendKind::kNccl;
  if (text == "mpi") return BackendKind::kMpi;
  throw UsageError(std::string(flag) + ": unknown backend '" + std::string(text) + "' (one of: auto, nccl, mpi)");
}

bool built_with_nccl() { return PB_HAVE_NCCL != 0; }
bool built_with_mpi() { return PB_HAVE_MPI != 0; }

int visible_gpus(std::string* why) {
#if PB_HAVE_NCCL
  return nccl_visible_gpus(why);
#else
  if (why) *why = "this build has no CUDA/NCCL support";
  return 0;
#endif
}

namespace {

// auto fell back to host memory while CUDA_VISIBLE_DEVICES names devices: a typo there ('abc', '0,0',
// '-1') hides every GPU of a GPU node, and the run would time host memory with exit 0. One line on
// rank 0 says so; an empty value (CUDA_VISIBLE_DEVICES=) is the deliberate way to hide GPUs.
void warn_hidden_gpus(int gpus, const std::string& why, const World& world) {
  const char* value = std::getenv("CUDA_VISIBLE_DEVICES");
  if (!built_with_nccl() || gpus > 0 || world.rank() != 0 || !value || !*value) return;
  std::cerr << "pipebench: CUDA_VISIBLE_DEVICES='" << value << "' leaves no GPU visible on " << world.where()
            << (why.empty() ? "" : " (" + why + ")")
            << ": running on the MPI backend over host memory (--backend nccl requires a GPU)\n";
}

}  // namespace

void require_backend_for_launch(BackendKind kind, bool tcp_rendezvous) {
  if (kind == BackendKind::kMpi && tcp_rendezvous) {
    throw UsageError(
        "--backend mpi: this process was launched torchrun-style (RANK, WORLD_SIZE, MASTER_ADDR, "
        "MASTER_PORT) and its ranks meet over TCP without MPI; the mpi backend needs mpirun or srun "
        "--mpi=pmix (use --backend nccl)");
  }
}

BackendKind resolve_backend(BackendKind kind, const World& world) {
  require_backend_for_launch(kind, world.tcp_rendezvous());
  if (kind != BackendKind::kAuto) return kind;
  if (world.tcp_rendezvous()) return BackendKind::kNccl;  // no MPI to fall back to: nccl or a clear error
  std::string why;
  const int gpus = visible_gpus(&why);
  const BackendKind resolved = world.all(gpus > 0) ? BackendKind::kNccl : BackendKind::kMpi;
  if (resolved == BackendKind::kMpi) warn_hidden_gpus(gpus, why, world);
  return resolved;
}

std::unique_ptr<Backend> make_backend(BackendKind kind, const World& world, int gpus,
                                      const std::vector<std::string>& gpu_list) {
  kind = resolve_backend(kind, world);  // throws for mpi under a torchrun-style launch
  if (kind == BackendKind::kNccl) {
#if PB_HAVE_NCCL
    std::string why;
    const bool ok = world.all(visible_gpus(&why) > 0);
    if (!ok) throw UsageError("--backend nccl: no GPU on " + world.where() + (why.empty() ? "" : " (" + why + ")"));
    return make_nccl_backend(world, gpus, gpu_list);
#else
    throw UsageError("--backend nccl: this pipebench was built without CUDA/NCCL (see 'make' output)");
#endif
  }
  if (!gpu_list.empty()) throw UsageError("--gpus: the mpi backend runs on host memory and uses no GPU");
  if (gpus != 1) {
    throw UsageError("-g " + std::to_string(gpus) +
                     ": the mpi backend runs one host rank per process; start more with mpirun -np");
  }
#if PB_HAVE_MPI
  return make_mpi_backend(world);
#else
  throw UsageError("--backend mpi: this pipebench was built without MPI (install libopenmpi-dev)");
#endif
}

}  // namespace pipebench
