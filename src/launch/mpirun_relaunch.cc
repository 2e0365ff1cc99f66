// SPDX-License-Identifier: Apache-2.0
// Re-launch under mpirun.
#include "launch/mpirun_relaunch.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "core/error.h"

namespace pipebench {

bool started_by_launcher() {
  return std::getenv("OMPI_COMM_WORLD_SIZE") || std::getenv("PMIX_RANK") || std::getenv("PMI_RANK");
}

std::string find_in_path(const std::string& program) {
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/bin:/bin";
  std::size_t start = 0;
  while (start <= dirs.size()) {
    const std::size_t colon = dirs.find(':', start);
    const std::string dir = dirs.substr(start, colon == std::string::npos ? std::string::npos : colon - start);
    const std::string candidate = (dir.empty() ? "." : dir) + "/" + program;
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
    if (colon == std::string::npos) break;
    start = colon + 1;
  }
  return {};
}

void exec_under_mpirun(const std::string& mpirun, int ranks, const std::vector<std::string>& args) {
  if (geteuid() == 0) {  // Open MPI refuses root without these (its own documented override)
    setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 0);
    setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 0);
  }
  const std::string self = std::filesystem::read_symlink("/proc/self/exe").string();
  std::vector<std::string> words = {mpirun, "-np", std::to_string(ranks), "--oversubscribe", self};
  words.insert(words.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  execv(mpirun.c_str(), argv.data());
  throw Error("execv(" + mpirun + ") failed");
}

}  // namespace pipebench
