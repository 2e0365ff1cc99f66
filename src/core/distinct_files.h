// SPDX-License-Identifier: Apache-2.0
// The files one command reads and writes must be different files: an output that is one of the inputs
// would replace the input (and `--json x --csv x` would keep one of the two). Files are compared by
// device and inode, so another name of the same file (a relative path, a hard link, a link to it) is
// the same file; an output that does not exist yet is compared by its folder's inode and its name.
#pragma once

#include <string>
#include <vector>

namespace pipebench {

// A file named on the command line: the flag that named it ("--json", "FILE") and its path.
struct FileArg {
  std::string flag;
  std::string path;
};

// Throws UsageError, one line naming both flags and the path, when an output is the same file as an
// input or as another output. Empty paths are skipped; inputs that cannot be looked at are left to the
// reader (which names them).
void require_distinct_files(const std::vector<FileArg>& inputs, const std::vector<FileArg>& outputs);

// Throws UsageError, one line naming both, when an input is the same file as another (by device and
// inode): read twice, its records or ranks would count twice. Paths that cannot be looked at are left to
// the reader.
void require_distinct_inputs(const std::vector<FileArg>& inputs);

}  // namespace pipebench
