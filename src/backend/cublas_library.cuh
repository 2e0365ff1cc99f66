// SPDX-License-Identifier: Apache-2.0
// cuBLAS, opened (dlopen) the first time a GEMM is timed instead of linked: a linked libcublas pulls in
// libcublasLt at start-up, about 210 MB of resident memory and 0.4 s before main in every pipebench process
// (measured on the development machine: an empty program linked with -lcublas peaks at 214 MB), while only
// --measure-compute and replay --compute gemm call it. CUDA-only header: included from .cu files alone.
#pragma once

#include <cublas_v2.h>

namespace pipebench {

// The cuBLAS entry points pipebench calls (the _v2 symbols that cublas_v2.h's names stand for).
struct CublasLibrary {
  decltype(&cublasCreate_v2) create = nullptr;
  decltype(&cublasDestroy_v2) destroy = nullptr;
  decltype(&cublasSetStream_v2) set_stream = nullptr;
  // The overload with cublasComputeType_t (the other, with cudaDataType, is an inline wrapper in the header).
  cublasStatus_t (*gemm_strided_batched_ex)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,
                                            const void*, const void*, cudaDataType, int, long long, const void*,
                                            cudaDataType, int, long long, const void*, void*, cudaDataType, int,
                                            long long, int, cublasComputeType_t, cublasGemmAlgo_t) = nullptr;
};

// Opens libcublas.so.<major of the headers built against> once. Throws Error naming the library or symbol and
// dlerror()'s reason.
[[nodiscard]] const CublasLibrary& cublas_library();

}  // namespace pipebench
