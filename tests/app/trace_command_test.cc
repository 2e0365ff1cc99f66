// SPDX-License-Identifier: Apache-2.0
// The progress hook `trace` gives its readers, with the clock and the terminal flag injected: plain
// lines at most every ten seconds and at the end once one was printed; on a terminal one line redrawn
// and erased when the hook goes away; a reader's next unit starts a new estimate.
#include "app/trace_command.h"

#include <gtest/gtest.h>

#include <sstream>

namespace pipebench {
namespace {

TEST(TraceProgress, PlainLinesEveryTenSecondsAndAtTheEnd) {
  std::ostringstream out;
  double now = 0;
  TraceProgressFn hook = trace_progress(out, false, [&] { return now; });
  hook("MiB", 0, 100);
  now = 5;
  hook("MiB", 40, 100);
  EXPECT_EQ(out.str(), "");  // short reads stay quiet
  now = 10;
  hook("MiB", 50, 100);
  EXPECT_EQ(out.str(), "pipebench: MiB 50 of 100, about 10 s left\n");
  now = 20;
  hook("MiB", 100, 100);
  EXPECT_EQ(out.str(), "pipebench: MiB 50 of 100, about 10 s left\npipebench: MiB 100 of 100, done in 20 s\n");
  hook = nullptr;  // nothing to erase in plain mode
  EXPECT_EQ(out.str().back(), '\n');
}

TEST(TraceProgress, OneRedrawnLineOnATerminalErasedAtTheEnd) {
  std::ostringstream out;
  double now = 0;
  TraceProgressFn hook = trace_progress(out, true, [&] { return now; });
  hook("kernel row", 0, 1000);
  EXPECT_EQ(out.str(), "\r\x1b[Kpipebench: kernel row 0 of 1000");
  now = 2;
  hook("kernel row", 500, 1000);
  EXPECT_EQ(out.str(),
            "\r\x1b[Kpipebench: kernel row 0 of 1000\r\x1b[Kpipebench: kernel row 500 of 1000, about 2 s left");
  out.str("");
  hook("MiB", 1, 4);  // another unit: a new line and estimate
  EXPECT_EQ(out.str(), "\r\x1b[K\r\x1b[Kpipebench: MiB 1 of 4, about 0 s left");
  out.str("");
  hook = nullptr;
  EXPECT_EQ(out.str(), "\r\x1b[K");
}

}  // namespace
}  // namespace pipebench
