// SPDX-License-Identifier: Apache-2.0
// The tool's version, written into every report.
#pragma once

namespace pipebench {

inline constexpr const char* kToolVersion = "0.1.0";

}  // namespace pipebench
