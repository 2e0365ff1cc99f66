// SPDX-License-Identifier: Apache-2.0
#include "core/output_lock.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <vector>

#include "core/error.h"

namespace pipebench {
namespace {

class OutputLockTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("pipebench_lock_" + std::to_string(getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  std::filesystem::path dir_;
};

TEST_F(OutputLockTest, LockFileIsHiddenBesideTheOutput) {
  EXPECT_EQ(OutputLock::lock_path("a.json"), ".a.json.lock");
  EXPECT_EQ(OutputLock::lock_path("/x/y/a.json"), "/x/y/.a.json.lock");
}

// A second writer of the same output is refused with one line naming the flag, the file and the holder;
// once the first ends, the lock file is gone and the output may be written again.
TEST_F(OutputLockTest, SecondWriterIsRefusedUntilTheFirstEnds) {
  const std::string out = path("same.json");
  {
    OutputLock first("--json", out);
    EXPECT_TRUE(std::filesystem::exists(path(".same.json.lock")));
    try {
      OutputLock second("--json", out);
      ADD_FAILURE() << "a second lock of the same output was taken";
    } catch (const UsageError& e) {
      const std::string m = e.what();
      EXPECT_NE(m.find("--json " + out + ": being written by another pipebench (process " + std::to_string(getpid())),
                std::string::npos)
          << m;
    }
    OutputLock other("--csv", path("other.csv"));  // another output is no conflict
  }
  EXPECT_FALSE(std::filesystem::exists(path(".same.json.lock")));
  OutputLock again("--json", out);
}

// A command's outputs locked at once: refused on one, the set holds none of them; taken, each output's own
// writer (a lock in the same process) writes under the set's lock.
TEST_F(OutputLockTest, ASetLocksEveryOutputOrNoneAndItsWritersWriteUnderIt) {
  const std::string a = path("a.json"), b = path("b.csv");
  {
    const OutputLock other("--csv", b);  // another writer of b
    EXPECT_THROW((void)OutputLockSet(std::vector<FileArg>{{"--json", a}, {"--csv", b}}), UsageError);
    EXPECT_FALSE(std::filesystem::exists(path(".a.json.lock")));  // taken first, then let go
  }
  const OutputLockSet set(std::vector<FileArg>{{"--json", a}, {"--csv", b}, {"--jsonl", ""}});
  EXPECT_TRUE(std::filesystem::exists(path(".a.json.lock")));
  EXPECT_TRUE(std::filesystem::exists(path(".b.csv.lock")));
  EXPECT_NO_THROW(OutputLock("--json", a));
  EXPECT_NO_THROW(OutputLock("--csv", b));
  EXPECT_TRUE(std::filesystem::exists(path(".a.json.lock")));  // still the set's
}

// A writer killed with SIGKILL leaves its lock file but no lock: the next run takes it.
TEST_F(OutputLockTest, LockFileOfAKilledWriterIsReused) {
  const std::string out = path("killed.json");
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    OutputLock held("--json", out);
    ::pause();
    std::_Exit(0);
  }
  for (int i = 0; i < 200 && !std::filesystem::exists(path(".killed.json.lock")); ++i) ::usleep(10000);
  for (int i = 0; i < 200 && std::filesystem::file_size(path(".killed.json.lock")) == 0; ++i) ::usleep(10000);
  EXPECT_THROW(OutputLock("--json", out), UsageError);  // the child holds it
  ::kill(child, SIGKILL);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  EXPECT_TRUE(std::filesystem::exists(path(".killed.json.lock")));
  OutputLock after("--json", out);
}

// A lock file that another output of the run was written to (--csv .a.json.lock) is that output now: it
// is left in place when the lock ends.
TEST_F(OutputLockTest, LockFileWrittenAsAnotherOutputIsKept) {
  {
    OutputLock held("--json", path("a.json"));
    std::ofstream(path(".a.json.lock")) << "size,time_us\n8,1.5\n";
  }
  std::ifstream in(path(".a.json.lock"));
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "size,time_us");
}

// The lock file is never followed through a link or opened as a FIFO.
TEST_F(OutputLockTest, LockFileThatIsALinkOrFifoIsRefused) {
  const std::string victim = path("victim.txt");
  std::ofstream(victim) << "VICTIM\n";
  std::filesystem::create_symlink(victim, path(".a.json.lock"));
  EXPECT_THROW(OutputLock("--json", path("a.json")), UsageError);
  ASSERT_EQ(::mkfifo(path(".b.json.lock").c_str(), 0600), 0);
  EXPECT_THROW(OutputLock("--json", path("b.json")), UsageError);
  std::filesystem::create_directory(path(".c.json.lock"));
  EXPECT_THROW(OutputLock("--json", path("c.json")), UsageError);
  std::ifstream in(victim);
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "VICTIM");
}

}  // namespace
}  // namespace pipebench
