// SPDX-License-Identifier: Apache-2.0
// The Chrome trace of a whole job (trace-formats.md C3): one process per rank ("rank N", pid N), one
// thread per CUDA stream, every kernel and memcpy/memset on the aligned job clock, so that Perfetto
// shows the ranks one under another. Each rank's file is streamed a second time, one after another:
// memory holds one event at a time.
#pragma once

#include <string>

#include "trace/job_profile.h"

namespace pipebench {

// Throws UsageError naming --chrome-trace when the file cannot be written. Returns the events written
// (complete and metadata).
std::int64_t write_job_chrome_trace(const std::string& path, const JobProfile& job);

}  // namespace pipebench
