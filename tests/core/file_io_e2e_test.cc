// SPDX-License-Identifier: Apache-2.0
// End to end: every writer and every file input of the pipebench binary, given a FIFO, a directory or a
// symbolic link made in a temporary folder (never /dev). Each: exit 2, one line naming the flag and the
// path, no hang (each run has a time limit), and the FIFO, directory or link left as it was.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "trace/nsys_fixture.h"

namespace {

struct Result {
  int status = -1;
  std::string err;
};

class FileIoE2E : public ::testing::Test {
 protected:
  void SetUp() override {
    setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
    setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
    char pattern[] = "/tmp/pipebench_file_io_e2e_XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir_ = pattern;
    ASSERT_EQ(mkfifo(path("fifo").c_str(), 0600), 0);
    ASSERT_EQ(mkdir(path("dir").c_str(), 0700), 0);
    std::ofstream(path("target")) << "keep\n";
    ASSERT_EQ(symlink(path("target").c_str(), path("link").c_str()), 0);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string path(const std::string& name) const { return dir_ + "/" + name; }

  // Runs pipebench with a 60 s limit (a blocked FIFO read would otherwise hang the suite).
  Result run(const std::string& args) const {
    const std::string err = path("stderr");
    const int rc =
        std::system(("timeout 60 " PIPEBENCH_BIN " " + args + " >/dev/null 2>" + err + " </dev/null").c_str());
    std::ifstream in(err);
    std::stringstream ss;
    ss << in.rdbuf();
    return {WIFEXITED(rc) ? WEXITSTATUS(rc) : -1, ss.str()};
  }

  // Exit 2 and one line naming the flag and the path; the special files untouched.
  void expect_refused(const std::string& args, const std::string& flag, const std::string& name) const {
    const Result r = run(args);
    EXPECT_EQ(r.status, 2) << args << "\n" << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << args << "\n" << r.err;
    EXPECT_NE(r.err.find(flag), std::string::npos) << args << "\n" << r.err;
    EXPECT_NE(r.err.find(path(name)), std::string::npos) << args << "\n" << r.err;
    struct stat st {};
    EXPECT_TRUE(lstat(path("fifo").c_str(), &st) == 0 && S_ISFIFO(st.st_mode));
    EXPECT_TRUE(lstat(path("link").c_str(), &st) == 0 && S_ISLNK(st.st_mode));
    EXPECT_TRUE(std::filesystem::is_empty(path("dir")));
    std::ifstream in(path("target"));
    std::string text;
    std::getline(in, text);
    EXPECT_EQ(text, "keep");
  }

  std::string dir_;
};

const char* kModel =
    "--num-layers 4 --hidden-size 64 --num-attention-heads 4 --seq-length 32 --max-position-embeddings 32 "
    "--micro-batch-size 1 "
    "--global-batch-size 8 --pipeline-model-parallel-size 2 --world-size 2 --vocab-size 128";

// No writer replaces a FIFO, a directory entry or a link target with a regular file.
TEST_F(FileIoE2E, EveryWriterRefusesAFifoADirectoryAndASymbolicLink) {
  const std::string plan = path("plan.json");
  ASSERT_EQ(run("plan --json " + plan + " -- " + kModel).status, 0);
  const std::string kineto = std::string(TEST_DATA_DIR) + "/trace/kineto_allreduce_1gpu.json";
  for (const std::string name : {"fifo", "dir", "link"}) {
    expect_refused("plan --json " + path(name) + " -- " + kModel, "--json", name);
    expect_refused("predict --plan " + plan + " --zero-comm --tflops 100 --json " + path(name), "--json", name);
    expect_refused("trace " + kineto + " --json " + path(name), "--json", name);
    expect_refused("bench --op all_reduce -b 8 -e 64 --json " + path(name), "--json", name);
    expect_refused("bench --op all_reduce -b 8 -e 64 --csv " + path(name), "--csv", name);
  }
  expect_refused("topo --export-xml " + path("fifo"), "--export-xml", "fifo");
  ASSERT_EQ(symlink(path("target").c_str(), path("dir/trace-1f1b-v1.json").c_str()), 0);
  const Result r = run("predict --plan " + plan + " --zero-comm --tflops 100 --trace " + path("dir"));
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("--trace " + path("dir/trace-1f1b-v1.json") + ": a symbolic link"), std::string::npos) << r.err;
  std::filesystem::remove(path("dir/trace-1f1b-v1.json"));
#if PB_HAVE_SQLITE
  {
    pipebench::testing::NsysFixture f(path("p.sqlite"));
    f.kernel(0, 7, 0, 10, f.str("k"), 1, 1);
  }
  expect_refused("trace " + path("p.sqlite") + " --chrome-trace " + path("fifo"), "--chrome-trace", "fifo");
  std::filesystem::remove(path("p.sqlite"));
#endif
}

// A FIFO or a directory as input is one line, exit 2: never a read that blocks, nor "basic_filebuf::underflow".
TEST_F(FileIoE2E, EveryFileInputRefusesAFifoAndADirectoryWithoutBlocking) {
  const std::string plan = path("plan.json");
  ASSERT_EQ(run("plan --json " + plan + " -- " + kModel).status, 0);
  for (const std::string name : {"fifo", "dir"}) {
    expect_refused("predict --plan " + path(name) + " --zero-comm --tflops 100", "--plan", name);
    expect_refused("predict --plan " + plan + " --table " + path(name) + " --tflops 100", "--table", name);
    expect_refused("predict --plan " + plan + " --link PIX=10 --link-gbps 10 --tflops 100 --topology " + path(name),
                   "--topology", name);
    expect_refused("trace " + path(name), "", name);
    expect_refused("bench --plan " + path(name), "--plan", name);
    expect_refused("topo --xml " + path(name), "--xml", name);
    if (PB_HAVE_TINYXML2)
      expect_refused("topo --nccl-xml " + path(name), "--nccl-xml", name);  // else: built out, said so
  }
  std::filesystem::remove(plan);
}

}  // namespace
