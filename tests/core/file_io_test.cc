// SPDX-License-Identifier: Apache-2.0
// Input and output files: FIFOs, directories and symbolic links made in a temporary folder (never /dev).
#include "core/file_io.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/error.h"
#include "core/json_file.h"

namespace pipebench {
namespace {

class FileIo : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/pipebench_file_io_XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir_ = pattern;
    ASSERT_EQ(mkfifo(path("fifo").c_str(), 0600), 0);
    ASSERT_EQ(mkdir(path("dir").c_str(), 0700), 0);
    std::ofstream(path("target.json")) << "{\"old\": true}\n";
    ASSERT_EQ(symlink(path("target.json").c_str(), path("link").c_str()), 0);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string path(const std::string& name) const { return dir_ + "/" + name; }
  static std::string slurp(const std::string& p) {
    std::ifstream in(p);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
  template <typename F>
  static std::string usage_error(F f) {
    try {
      f();
    } catch (const UsageError& e) {
      return e.what();
    }
    return "(no UsageError)";
  }
  std::string dir_;
};

TEST_F(FileIo, InputsMustBeRegularFilesAndAFifoNeverBlocks) {
  // Refused without opening it: std::ifstream on a FIFO waits forever for a writer.
  EXPECT_EQ(usage_error([&] { (void)read_input_file("--plan", path("fifo")); }),
            "--plan " + path("fifo") + ": a FIFO, not a regular file (inputs are read from files only)");
  EXPECT_EQ(usage_error([&] { (void)read_json_file("--table", path("dir")); }),
            "--table " + path("dir") + ": a directory, not a regular file (inputs are read from files only)");
  EXPECT_EQ(usage_error([&] { require_input_file("--xml", path("fifo")); }),
            "--xml " + path("fifo") + ": a FIFO, not a regular file (inputs are read from files only)");
  EXPECT_EQ(usage_error([&] { require_input_file("--xml", path("missing")); }),
            "--xml " + path("missing") + ": cannot be read (no such file)");
  EXPECT_EQ(read_json_file("--plan", path("link")).at("old"), true);  // a link to a regular file is an input
  require_input_file("--plan", path("target.json"));
}

TEST_F(FileIo, OutputsAreOnlyRegularFilesOrNewPathsAndTheRefusedOnesStayUntouched) {
  for (const std::string name : {"fifo", "dir", "link"}) {
    const std::string msg = usage_error([&] { write_output_file("--json", path(name), "{}\n"); });
    EXPECT_EQ(msg.rfind("--json " + path(name) + ": ", 0), 0u) << msg;
  }
  EXPECT_NE(usage_error([&] { write_output_file("--json", path("link"), "{}"); }).find("a symbolic link"),
            std::string::npos);
  struct stat st {};
  ASSERT_EQ(lstat(path("fifo").c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
  ASSERT_EQ(lstat(path("link").c_str(), &st), 0);
  EXPECT_TRUE(S_ISLNK(st.st_mode));
  EXPECT_EQ(slurp(path("target.json")), "{\"old\": true}\n");  // not written through the link
  EXPECT_TRUE(std::filesystem::is_empty(path("dir")));

  write_output_file("--json", path("new.json"), "one\n");
  write_output_file("--json", path("new.json"), "two\n");
  EXPECT_EQ(slurp(path("new.json")), "two\n");
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir_), {}), 5);  // no temporary left behind
}

// Runs f in a child whose files cannot grow beyond limit_bytes (RLIMIT_FSIZE, SIGXFSZ ignored: write(2)
// fails with EFBIG as on a full disk). The child's exit status: 0 when f threw Error with the expected text.
template <typename F>
int in_small_filesystem(rlim_t limit_bytes, F f) {
  const pid_t pid = fork();
  if (pid == 0) {
    signal(SIGXFSZ, SIG_IGN);
    const rlimit lim{limit_bytes, limit_bytes};
    setrlimit(RLIMIT_FSIZE, &lim);
    _exit(f());
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 100;
}

TEST_F(FileIo, ARecordFileOnAFullDiskKeepsWholeLinesAndSaysSo) {
  const std::string p = path("records.csv");
  const int rc = in_small_filesystem(1000, [&] {
    try {
      RecordFile f("--csv", p);
      for (int i = 0; i < 1000; ++i) f.append("line " + std::to_string(i) + " of a record that is long enough\n");
      return 1;  // never failed: the limit did not bite
    } catch (const Error& e) {
      const std::string msg = e.what();
      const bool named =
          msg.rfind("--csv " + p + ": cannot write line ", 0) == 0 && msg.find("whole lines") != std::string::npos;
      return named ? 0 : 2;
    }
  });
  ASSERT_EQ(rc, 0);
  const std::string text = slurp(p);
  ASSERT_FALSE(text.empty());
  EXPECT_LE(text.size(), 1000u);
  EXPECT_EQ(text.back(), '\n');  // the partial line was cut
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) EXPECT_NE(line.find("long enough"), std::string::npos) << line;
}

TEST_F(FileIo, AnAtomicWriteThatFailsKeepsTheOldFile) {
  const std::string p = path("results.json");
  write_output_file("--json", p, "{\"records\": []}\n");
  const int rc = in_small_filesystem(100, [&] {
    try {
      write_output_file("--json", p, std::string(5000, ' ') + "{}\n");
      return 1;
    } catch (const Error& e) {
      return std::string(e.what()).find("the previous file is kept") != std::string::npos ? 0 : 2;
    }
  });
  ASSERT_EQ(rc, 0);
  EXPECT_EQ(slurp(p), "{\"records\": []}\n");
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir_), {}), 5);  // the temporary was removed
}

// A folder's inputs: its regular files and links to one; every other entry with a wanted name is named on
// stderr as skipped.
TEST_F(FileIo, FolderInputsAreRegularFilesAndEveryOtherEntryIsNamedAsSkipped) {
  const std::string in = path("in");
  ASSERT_EQ(mkdir(in.c_str(), 0700), 0);
  std::ofstream(in + "/rank0.json") << "{}";
  ASSERT_EQ(symlink(path("target.json").c_str(), (in + "/rank1.json").c_str()), 0);
  ASSERT_EQ(mkfifo((in + "/rank2.json").c_str(), 0600), 0);
  ASSERT_EQ(mkdir((in + "/rank3.json").c_str(), 0700), 0);
  ASSERT_EQ(symlink(path("fifo").c_str(), (in + "/rank4.json").c_str()), 0);
  ASSERT_EQ(symlink(path("nothing").c_str(), (in + "/rank5.json").c_str()), 0);
  std::ofstream(in + "/notes.txt") << "not wanted";
  testing::internal::CaptureStderr();
  const auto files = list_folder_inputs(
      "INPUT", in, [](const std::string& n) { return n.size() > 5 && n.substr(n.size() - 5) == ".json"; });
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(files, (std::vector<std::string>{in + "/rank0.json", in + "/rank1.json"}));
  EXPECT_NE(err.find(in + "/rank2.json: a FIFO, skipped"), std::string::npos) << err;
  EXPECT_NE(err.find(in + "/rank3.json: a directory, skipped"), std::string::npos) << err;
  EXPECT_NE(err.find(in + "/rank4.json: a symbolic link to a FIFO, skipped"), std::string::npos) << err;
  EXPECT_NE(err.find(in + "/rank5.json: a symbolic link to nothing, skipped"), std::string::npos) << err;
  EXPECT_EQ(err.find("notes.txt"), std::string::npos) << err;
  EXPECT_NE(usage_error([&] {
              (void)list_folder_inputs("INPUT", path("missing"), [](const std::string&) { return true; });
            }).find("INPUT " + path("missing") + ": cannot be listed"),
            std::string::npos);
}

}  // namespace
}  // namespace pipebench
