// SPDX-License-Identifier: Apache-2.0
// Open MPI's banners after pipebench's error line are left out; every other line passes, in order.
#include "launch/mpirun_banner_filter.h"

#include <gtest/gtest.h>

#include <string>

namespace pipebench {
namespace {

const std::string kDashes(74, '-');

// The text as Open MPI 4.1's mpirun wrote it when a rank exited 2 (pipebench replay --table of a file
// that is not JSON, on 4 host ranks).
std::string failed_job() {
  return "pipebench: --table bad.json: not JSON (parse error at line 2, column 1)\n" + kDashes +
         "\nPrimary job  terminated normally, but 1 process returned\na non-zero exit code. Per user-direction, "
         "the job has been aborted.\n" +
         kDashes + "\n" + kDashes +
         "\nmpirun detected that one or more processes exited with non-zero status, thus causing\nthe job to be "
         "terminated. The first process to do so was:\n\n  Process name: [[9363,1],2]\n  Exit code:    2\n" +
         kDashes + "\n";
}

std::string filtered(const std::string& text, std::size_t chunk) {
  std::string out;
  MpirunBannerFilter f([&](std::string_view s) { out.append(s); });
  for (std::size_t i = 0; i < text.size(); i += chunk) f.feed(std::string_view(text).substr(i, chunk));
  f.finish();
  return out;
}

TEST(MpirunBannerFilter, BannersAfterPipebenchsErrorLineAreLeftOut) {
  for (std::size_t chunk : {1, 7, 4096}) {  // however the pipe cuts the text
    EXPECT_EQ(filtered(failed_job(), chunk),
              "pipebench: --table bad.json: not JSON (parse error at line 2, column 1)\n");
  }
  const std::string abort = "pipebench: -T 1e-06: point did not finish; aborting the job\n" + kDashes +
                            "\nMPI_ABORT was invoked on rank 0 in communicator MPI_COMM_WORLD\nwith errorcode 1.\n" +
                            kDashes +
                            "\n[vm:01234] 1 more process has sent help message help-mpi-api.txt / mpi-abort\n"
                            "[vm:01234] Set MCA parameter \"orte_base_help_aggregate\" to 0 to see all help / error "
                            "messages\n";
  EXPECT_EQ(filtered(abort, 5), "pipebench: -T 1e-06: point did not finish; aborting the job\n");
}

// MPI_Abort's banner travels to mpirun apart from the rank's output, and Open MPI's notes start with
// "[host:pid]": both can come before pipebench's line (seen with pairs -T 1e-6 on 2 host ranks).
TEST(MpirunBannerFilter, BannersAndNotesBeforeTheErrorLineAreLeftOutToo) {
  const std::string early = "# pairs: 2 ranks\n" + kDashes + "\nMPI_ABORT was invoked on rank 1\n" + kDashes +
                            "\npipebench: -T 1e-06: point did not finish; aborting the job\n"
                            "[vm:27213] [[1715,0],0] ORTE_ERROR_LOG: Data unpack would read past end of buffer\n";
  EXPECT_EQ(filtered(early, 6), "# pairs: 2 ranks\npipebench: -T 1e-06: point did not finish; aborting the job\n");
}

TEST(MpirunBannerFilter, WithoutPipebenchsErrorLineEveryLinePasses) {
  // The banner is then the only message (a rank killed by a signal, too few slots): it comes at the end.
  const std::string banner =
      kDashes + "\nmpirun noticed that process rank 1 exited on signal 9 (Killed).\n" + kDashes + "\n";
  EXPECT_EQ(filtered("# pairs: 2 ranks\n" + banner + "pipebench: warning: x\n[vm:12] a note\n", 3),
            "# pairs: 2 ranks\npipebench: warning: x\n" + banner + "[vm:12] a note\n");
  // A banner never closed and a last line without its line feed are still passed on.
  EXPECT_EQ(filtered(kDashes + "\nhalf a banner", 4), kDashes + "\nhalf a banner");
  EXPECT_EQ(filtered("pipebench: error\n" + kDashes + "\nhalf", 4), "pipebench: error\n");
  // Lines after the error that are no banner (another rank's line) still pass; "[x] y" is no note.
  EXPECT_EQ(filtered("pipebench: error\nrank 1 said\n[x] y\n", 2), "pipebench: error\nrank 1 said\n[x] y\n");
}

}  // namespace
}  // namespace pipebench
