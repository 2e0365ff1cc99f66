// SPDX-License-Identifier: Apache-2.0
// The command line an output file records (`"command_line"` of every pipebench file), redacted like the
// environment (core/environment.h): the value of a flag whose name looks like a credential
// (`--hf-token X`, `--wandb-api-key=X`, `NCCL_KEY=X`) is written as "<redacted>".
#pragma once

#include <string>
#include <vector>

namespace pipebench {

// The words joined by spaces, each quoted for a POSIX shell where it needs it, with sensitive values
// replaced by kRedacted. The first word keeps only its file name ("/usr/bin/pipebench" -> "pipebench").
[[nodiscard]] std::string redacted_command_line(const std::vector<std::string>& words);

// The same for arguments without the program (Open MPI's OMPI_ARGV).
[[nodiscard]] std::string redacted_arguments(const std::vector<std::string>& words);

// Words split at runs of spaces (Open MPI's OMPI_ARGV joins the arguments that way).
[[nodiscard]] std::vector<std::string> split_words(const std::string& text);

// This process's command line (/proc/self/cmdline), redacted; "" where it cannot be read.
[[nodiscard]] std::string this_command_line();

}  // namespace pipebench
