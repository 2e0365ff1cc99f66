// SPDX-License-Identifier: Apache-2.0
// cuBLAS through dlopen (cublas_library.cuh says why).
#include <dlfcn.h>

#include <string>

#include "backend/cublas_library.cuh"
#include "core/error.h"

namespace pipebench {
namespace {

// The soname of the cuBLAS these headers belong to (CUBLAS_VER_MAJOR, cublas_api.h).
std::string soname() { return "libcublas.so." + std::to_string(CUBLAS_VER_MAJOR); }

template <typename F>
void resolve(void* lib, const char* name, F& fn) {
  fn = reinterpret_cast<F>(dlsym(lib, name));
  if (!fn) {
    const char* why = dlerror();
    throw Error("dlsym(" + soname() + ", " + name + ") failed: " + (why ? why : "no such symbol"));
  }
}

CublasLibrary open_cublas() {
  // Never closed: cuBLAS handles may outlive any owner here, and the process ends soon after.
  void* lib = dlopen(soname().c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char* why = dlerror();
    throw Error("dlopen(" + soname() + ") failed: " + (why ? why : "unknown reason") +
                " (cuBLAS is needed for --measure-compute and --compute gemm)");
  }
  CublasLibrary api;
  resolve(lib, "cublasCreate_v2", api.create);
  resolve(lib, "cublasDestroy_v2", api.destroy);
  resolve(lib, "cublasSetStream_v2", api.set_stream);
  resolve(lib, "cublasGemmStridedBatchedEx", api.gemm_strided_batched_ex);
  return api;
}

}  // namespace

const CublasLibrary& cublas_library() {
  static const CublasLibrary api = open_cublas();
  return api;
}

}  // namespace pipebench
