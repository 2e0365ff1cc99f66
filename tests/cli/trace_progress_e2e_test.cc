// SPDX-License-Identifier: Apache-2.0
// `pipebench trace` on a large Kineto JSON under a terminal (script(1) gives it one) draws progress on
// stderr; --quiet draws none. The trace is generated in /tmp.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "cli/run_pipebench.h"

namespace pipebench {
namespace {

std::string write_trace(int kernels) {
  const std::string path = "/tmp/pipebench_trace_progress_" + std::to_string(getpid()) + ".json";
  std::ofstream out(path);
  out << "{\"traceEvents\": [\n";
  for (int i = 0; i < kernels; ++i) {
    out << (i ? ",\n" : "") << "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"gemm_" << i % 7
        << "\", \"pid\": 0, \"tid\": 7, \"ts\": " << i * 2 << ", \"dur\": 1, \"args\": {\"device\": 0, \"stream\": 7}}";
  }
  out << "\n]}\n";
  return path;
}

TEST(TraceProgressE2E, ATerminalSeesProgressAndQuietSilencesIt) {
  if (std::system("script -qec true /dev/null >/dev/null 2>&1") != 0) GTEST_SKIP() << "no script(1) for a terminal";
  const std::string trace = write_trace(100000);  // about 13 MiB
  const auto on_tty = [&](const std::string& flags) {
    return e2e::run_shell("script -qec '" PIPEBENCH_BIN " trace " + trace + flags + "' /dev/null");
  };
  const e2e::Result shown = on_tty("");
  EXPECT_EQ(shown.status, 0) << shown.out;
  EXPECT_NE(shown.out.find("pipebench: MiB "), std::string::npos) << shown.out;
  EXPECT_NE(shown.out.find("gemm_"), std::string::npos);  // the report follows
  const e2e::Result quiet = on_tty(" --quiet");
  EXPECT_EQ(quiet.status, 0) << quiet.out;
  EXPECT_EQ(quiet.out.find("pipebench: MiB"), std::string::npos) << quiet.out;
  EXPECT_NE(quiet.out.find("gemm_"), std::string::npos);
  // Without a terminal a read this short prints no line either (plain lines come every ten seconds).
  const e2e::Result plain = e2e::run("trace " + trace);
  EXPECT_EQ(plain.err.find("pipebench: MiB"), std::string::npos) << plain.err;
  std::remove(trace.c_str());
}

}  // namespace
}  // namespace pipebench
