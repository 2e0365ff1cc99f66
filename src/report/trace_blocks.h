// SPDX-License-Identifier: Apache-2.0
// The report's section for one trace file (`pipebench trace --json`): for a whole job the per-rank
// temporal breakdown of Holistic Trace Analysis, the clock alignment, the change against another run
// (--compare) and the measured-vs-model table (--prediction, --replay); for one profile its devices.
#pragma once

#include <cstddef>
#include <vector>

#include "report/report_document.h"

namespace pipebench {

// Appends the section to `blocks`. max_rows: the most rows of one table; the rest is counted in a note.
void add_trace_blocks(std::vector<Block>& blocks, const InputFile<TraceFile>& t, std::size_t max_rows);

}  // namespace pipebench
