// SPDX-License-Identifier: Apache-2.0
// End-to-end test helper: run the pipebench binary (or any shell line) with no input and capture its
// standard output, standard error and exit status. Shared by the tests that run the real binary.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

namespace pipebench::e2e {

struct Result {
  int status = -1;
  std::string out, err;
};

inline std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Runs a shell command line, capturing its output (through two files in /tmp, removed afterwards).
inline Result run_shell(const std::string& command) {
  static int n = 0;
  const std::string base = "/tmp/pipebench_run_" + std::to_string(getpid()) + "_" + std::to_string(n++);
  const std::string out = base + ".out", err = base + ".err";
  const int rc = std::system((command + " >" + out + " 2>" + err + " </dev/null").c_str());
  Result r;
  r.status = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
  r.out = slurp(out);
  r.err = slurp(err);
  std::remove(out.c_str());
  std::remove(err.c_str());
  return r;
}

// Runs build/bin/pipebench with these arguments, optionally behind a launcher (e.g. "mpirun -np 2").
inline Result run(const std::string& args, const std::string& launcher = "") {
  return run_shell(launcher + " " PIPEBENCH_BIN " " + args);
}

}  // namespace pipebench::e2e
