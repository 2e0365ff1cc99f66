// SPDX-License-Identifier: Apache-2.0
// Plain or gzip trace input.
#include "trace/gzip_stream.h"

#include <array>
#include <cstdint>
#include <fstream>
#include <streambuf>
#include <string>
#include <vector>

#include "core/error.h"

#if PB_HAVE_ZLIB
#include <zlib.h>
#endif

namespace pipebench {

namespace {

std::string mib(std::int64_t bytes) { return std::to_string(bytes >> 20) + " MiB"; }

// Reads the source in blocks and passes them on unchanged, following JSON's strings (quotes, escapes)
// and nesting as it goes, and throws UsageError at the first limit passed (gzip_stream.h): nlohmann's
// reader would otherwise hold a whole string, and a whole run of spaces (its token text), in memory.
class LimitedJsonBuf final : public std::streambuf {
 public:
  LimitedJsonBuf(std::unique_ptr<std::streambuf> source, std::string path, std::int64_t max_total_bytes)
      : source_(std::move(source)), path_(std::move(path)), max_total_(max_total_bytes), buffer_(1 << 16) {}

 protected:
  int_type underflow() override {
    if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
    const std::streamsize n = source_->sgetn(buffer_.data(), static_cast<std::streamsize>(buffer_.size()));
    if (n <= 0) return traits_type::eof();
    for (std::streamsize i = 0; i < n; ++i) follow(buffer_[static_cast<std::size_t>(i)]);
    setg(buffer_.data(), buffer_.data(), buffer_.data() + n);
    return traits_type::to_int_type(*gptr());
  }

  // tellg() of a plain file: the bytes read so far (the progress line); a decompressed stream has no
  // position in the file, as before.
  pos_type seekoff(off_type off, std::ios_base::seekdir dir, std::ios_base::openmode) override {
    if (off != 0 || dir != std::ios_base::cur || max_total_ != INT64_MAX) return pos_type(off_type(-1));
    return pos_type(static_cast<off_type>(offset_ - (egptr() - gptr())));
  }

 private:
  [[noreturn]] void refuse(const std::string& what) const {
    throw UsageError(path_ + ": " + what + " at byte " + std::to_string(offset_) +
                     " (a trace has none: refused, as a decompression or JSON bomb would be)");
  }

  void follow(char c) {
    ++offset_;
    if (offset_ > max_total_) refuse("more than " + std::to_string(max_total_ >> 30) + " GiB of decompressed data");
    if (depth_ >= 3 && offset_ - value_start_ > kMaxTraceEventBytes)
      refuse("an event (a value nested two levels deep) larger than " + mib(kMaxTraceEventBytes));
    if (in_string_) {
      if (++run_ > kMaxTraceStringBytes) refuse("a string longer than " + mib(kMaxTraceStringBytes));
      if (escaped_) {
        escaped_ = false;
      } else if (c == '\\') {
        escaped_ = true;
      } else if (c == '"') {
        in_string_ = false;
        run_ = 0;
      }
      return;
    }
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      if (++run_ > kMaxTraceStringBytes) refuse("more than " + mib(kMaxTraceStringBytes) + " of whitespace in a row");
      return;
    }
    run_ = 0;
    if (c == '"') {
      in_string_ = true;
    } else if (c == '{' || c == '[') {
      if (++depth_ == 3) value_start_ = offset_;
    } else if ((c == '}' || c == ']') && depth_ > 0) {
      --depth_;
    }
  }

  std::unique_ptr<std::streambuf> source_;
  std::string path_;
  std::int64_t max_total_;
  std::vector<char> buffer_;
  std::int64_t offset_ = 0, run_ = 0, value_start_ = 0;
  int depth_ = 0;
  bool in_string_ = false, escaped_ = false;
};

// The stream open_trace_input returns: owns its buffers. badbit in exceptions(): a read error rethrows
// the buffers' UsageError instead of only setting badbit.
class LimitedJsonStream final : public std::istream {
 public:
  LimitedJsonStream(std::unique_ptr<std::streambuf> source, std::string path, std::int64_t max_total_bytes)
      : std::istream(nullptr), buf_(std::move(source), std::move(path), max_total_bytes) {
    rdbuf(&buf_);
    exceptions(std::ios::badbit);
  }

 private:
  LimitedJsonBuf buf_;
};

std::unique_ptr<std::istream> open_plain(const std::string& path) {
  auto file = std::make_unique<std::filebuf>();
  if (!file->open(path, std::ios::in | std::ios::binary)) throw UsageError(path + ": cannot be read");
  return std::make_unique<LimitedJsonStream>(std::move(file), path, INT64_MAX);
}

}  // namespace

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

}  // namespace

bool gzip_available() { return true; }

std::unique_ptr<std::istream> open_trace_input(const std::string& path) {
  if (is_gzip_file(path)) {
    gzFile f = gzopen(path.c_str(), "rb");
    if (f == nullptr) throw UsageError(path + ": cannot be read (gzip)");
    return std::make_unique<LimitedJsonStream>(std::make_unique<GzipBuf>(f, path), path, kMaxTraceExpandedBytes);
  }
  return open_plain(path);
}

#else  // !PB_HAVE_ZLIB

bool gzip_available() { return false; }

std::unique_ptr<std::istream> open_trace_input(const std::string& path) {
  if (is_gzip_file(path)) {
    throw UsageError(path +
                     ": gzip-compressed, but this pipebench was built without zlib (no zlib.h at build time; install "
                     "zlib1g-dev and rebuild, or gunzip the file)");
  }
  return open_plain(path);
}

#endif

}  // namespace pipebench
