// SPDX-License-Identifier: Apache-2.0
// --compute gemm: the layer's GEMMs with cuBLAS on the replay's compute stream.
#include <utility>

#include "backend/gemm_steps.h"
#include "backend/replay_gemm.h"
#include "core/error.h"

#if PB_HAVE_CUBLAS
#include "backend/gemm_launch.cuh"
#endif

namespace pipebench {

#if PB_HAVE_CUBLAS

struct ReplayGemm::Impl {
  Impl(std::vector<GemmShape> shapes, DType t, int dev, std::int64_t fwd_ns)
      : layer(std::move(shapes)), type(t), layer_fwd_ns(fwd_ns), blas(dev), buffers(gemm_buffers_for(layer, dev)) {}
  std::vector<GemmShape> layer;
  DType type;
  std::int64_t layer_fwd_ns = 0;
  Blas blas;
  GemmBuffers buffers;
};

ReplayGemm::ReplayGemm(std::vector<GemmShape> layer, DType t, int device, std::int64_t layer_fwd_ns) {
  if (layer.empty()) throw UsageError("--compute gemm: the plan gives no layer GEMMs");
  impl_ = std::make_unique<Impl>(std::move(layer), t, device, layer_fwd_ns);
}

ReplayGemm::~ReplayGemm() = default;

void ReplayGemm::run(void* stream, std::int64_t duration_ns) {
  Impl& g = *impl_;
  g.blas.set_stream(static_cast<cudaStream_t>(stream));
  const GemmStep step = gemm_step(duration_ns, g.layer_fwd_ns, g.layer);
  for (std::int64_t p = 0; p < step.passes; ++p) {
    for (const auto& s : g.layer) launch_gemm(g.blas, s, g.type, g.buffers);
  }
  for (std::size_t i : step.extra) launch_gemm(g.blas, g.layer[i], g.type, g.buffers);
}

#else

struct ReplayGemm::Impl {};

ReplayGemm::ReplayGemm(std::vector<GemmShape>, DType, int, std::int64_t) {
  throw UsageError("--compute gemm: this pipebench was built without cuBLAS (use --compute spin)");
}
ReplayGemm::~ReplayGemm() = default;
void ReplayGemm::run(void*, std::int64_t) {}

#endif

}  // namespace pipebench
