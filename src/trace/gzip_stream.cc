// SPDX-License-Identifier: Apache-2.0
// Plain or gzip trace input.
#include "trace/gzip_stream.h"

#include <array>
#include <fstream>
#include <streambuf>
#include <string>
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
// A damaged stream (gzread < 0: a CRC or length mismatch in the trailer, RFC 1952 section 2.3.1, or bad
// deflate data) is an error naming the file, not an early end the JSON reader would call "not JSON".
class GzipBuf final : public std::streambuf {
 public:
  GzipBuf(gzFile f, std::string path) : file_(f), path_(std::move(path)), buffer_(1 << 18) {}
  ~GzipBuf() override { gzclose(file_); }
  GzipBuf(const GzipBuf&) = delete;
  GzipBuf& operator=(const GzipBuf&) = delete;

 protected:
  int_type underflow() override {
    if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
    const int n = gzread(file_, buffer_.data(), static_cast<unsigned>(buffer_.size()));
    if (n < 0) {
      int code = Z_OK;
      std::string what = gzerror(file_, &code);
      if (what.rfind(path_ + ": ", 0) == 0) what.erase(0, path_.size() + 2);  // zlib prefixes the path
      throw UsageError(path_ + ": gzip data corrupt (" + what + ")");
    }
    if (n == 0) return traits_type::eof();  // the end (a stream cut off: the JSON reader says where)
    setg(buffer_.data(), buffer_.data(), buffer_.data() + n);
    return traits_type::to_int_type(*gptr());
  }

 private:
  gzFile file_;
  std::string path_;
  std::vector<char> buffer_;
};

class GzipStream final : public std::istream {
 public:
  // badbit in exceptions(): the stream rethrows GzipBuf's UsageError instead of only setting badbit.
  GzipStream(gzFile f, std::string path) : std::istream(nullptr), buf_(f, std::move(path)) {
    rdbuf(&buf_);
    exceptions(std::ios::badbit);
  }

 private:
  GzipBuf buf_;
};

}  // namespace

bool gzip_available() { return true; }

std::unique_ptr<std::istream> open_trace_input(const std::string& path) {
  if (is_gzip_file(path)) {
    gzFile f = gzopen(path.c_str(), "rb");
    if (f == nullptr) throw UsageError(path + ": cannot be read (gzip)");
    return std::make_unique<GzipStream>(f, path);
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
