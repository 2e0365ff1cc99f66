// SPDX-License-Identifier: Apache-2.0
// Plain or gzip trace input.
#include "trace/gzip_stream.h"

#include <array>
#include <fstream>
#include <streambuf>
#include <vector>

#include "core/error.h"

#if PB_HAVE_ZLIB
#include <zlib.h>
#endif

namespace pipebench {

bool is_gzip_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::array<unsigned char, 2> head{};
  in.read(reinterpret_cast<char*>(head.data()), 2);
  return in.gcount() == 2 && head[0] == 0x1f && head[1] == 0x8b;
}

#if PB_HAVE_ZLIB

namespace {

// A read-only streambuf over gzread: zlib's own file interface, which also finds concatenated members.
class GzipBuf final : public std::streambuf {
 public:
  explicit GzipBuf(gzFile f) : file_(f), buffer_(1 << 18) {}
  ~GzipBuf() override { gzclose(file_); }
  GzipBuf(const GzipBuf&) = delete;
  GzipBuf& operator=(const GzipBuf&) = delete;

 protected:
  int_type underflow() override {
    if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
    const int n = gzread(file_, buffer_.data(), static_cast<unsigned>(buffer_.size()));
    if (n <= 0) return traits_type::eof();  // end, or a corrupt/cut-off stream: the JSON reader says where
    setg(buffer_.data(), buffer_.data(), buffer_.data() + n);
    return traits_type::to_int_type(*gptr());
  }

 private:
  gzFile file_;
  std::vector<char> buffer_;
};

class GzipStream final : public std::istream {
 public:
  explicit GzipStream(gzFile f) : std::istream(nullptr), buf_(f) { rdbuf(&buf_); }

 private:
  GzipBuf buf_;
};

}  // namespace

bool gzip_available() { return true; }

std::unique_ptr<std::istream> open_trace_input(const std::string& path) {
  if (is_gzip_file(path)) {
    gzFile f = gzopen(path.c_str(), "rb");
    if (f == nullptr) throw UsageError(path + ": cannot be read (gzip)");
    return std::make_unique<GzipStream>(f);
  }
  auto in = std::make_unique<std::ifstream>(path, std::ios::binary);
  if (!*in) throw UsageError(path + ": cannot be read");
  return in;
}

#else  // !PB_HAVE_ZLIB

bool gzip_available() { return false; }

std::unique_ptr<std::istream> open_trace_input(const std::string& path) {
  if (is_gzip_file(path)) {
    throw UsageError(path +
                     ": gzip-compressed, but this pipebench was built without zlib (no zlib.h at build time; install "
                     "zlib1g-dev and rebuild, or gunzip the file)");
  }
  auto in = std::make_unique<std::ifstream>(path, std::ios::binary);
  if (!*in) throw UsageError(path + ": cannot be read");
  return in;
}

#endif

}  // namespace pipebench
