// SPDX-License-Identifier: Apache-2.0
// Reads a PyTorch profiler (Kineto) Chrome-trace JSON (trace-formats.md C2) into a TraceProfile:
// kernels per device and stream, NCCL work as communication, collectives from c10d's
// record_param_comms metadata, and --by nvtx through the CUDA call that launched each kernel
// (args.correlation) to the innermost record_function range (user_annotation) of its thread.
#pragma once

#include <string>

#include "trace/profile.h"
#include "trace/trace_options.h"

namespace pipebench {

// Throws UsageError for a file that is not JSON or not a trace. A file cut off mid-way returns what
// was read, with `damage` set.
[[nodiscard]] TraceProfile read_kineto_json(const std::string& path, const TraceOptions& options);

}  // namespace pipebench
