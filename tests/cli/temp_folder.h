// SPDX-License-Identifier: Apache-2.0
// Test fixture for the tests that make files: each test gets a fresh folder of its own under the system temp
// dir (mkdtemp, so two tests or two test processes never share a file), helpers that make files, FIFOs and
// links in it, and the folder removed in TearDown, which gtest runs after a failed test too. Many of the
// tests that derive from it run the binary, some under mpirun, which refuses to run as root (a container)
// unless told it may.
#pragma once

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <system_error>

namespace pipebench::e2e {

class TempFolder : public ::testing::Test {
 protected:
  void SetUp() override {
    setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
    setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
    const std::string suite = ::testing::UnitTest::GetInstance()->current_test_info()->test_suite_name();
    std::string pattern = (std::filesystem::temp_directory_path() / ("pipebench_" + suite + "_XXXXXX")).string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr) << pattern;
    dir_ = pattern;
  }
  void TearDown() override {
    if (dir_.empty()) return;
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);  // links are removed, never what they point to
    EXPECT_FALSE(ec) << dir_ << ": " << ec.message();
  }

  // The path of `name` (which may hold folders) in the test's folder.
  [[nodiscard]] std::string path(const std::string& name) const { return (dir_ / name).string(); }
  // `name` holding exactly these bytes; returns its path. Throws, failing the test, if not written.
  std::string write(const std::string& name, const std::string& bytes) const {
    std::ofstream out(path(name), std::ios::binary);
    if (!(out << bytes).flush()) throw std::runtime_error(path(name) + ": cannot be written");
    return path(name);
  }
  // A copy of the file `from` as `name`; returns its path.
  std::string copy(const std::string& from, const std::string& name) const {
    std::filesystem::copy_file(from, path(name), std::filesystem::copy_options::overwrite_existing);
    return path(name);
  }
  // A symbolic link `name` to `target` (as written: a relative target is relative to the link's folder).
  std::string make_link(const std::string& target, const std::string& name) const {
    std::filesystem::create_symlink(target, path(name));
    return path(name);
  }
  // A FIFO `name` (no reader: an open for writing would block). Throws, failing the test, if not made.
  std::string make_fifo(const std::string& name) const {
    if (mkfifo(path(name).c_str(), 0600) != 0) throw std::system_error(errno, std::generic_category(), path(name));
    return path(name);
  }

  std::filesystem::path dir_;
};

}  // namespace pipebench::e2e
