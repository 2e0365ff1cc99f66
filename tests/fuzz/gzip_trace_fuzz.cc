// SPDX-License-Identifier: Apache-2.0
// Fuzz target: gzip-wrapped trace input (torch.profiler's trace.json.gz). The first byte chooses: even,
// the rest is compressed here into a valid gzip file (the JSON reader behind zlib); odd, the rest is the
// file itself (damaged gzip headers, data and CRC trailers). Bad input must be a UsageError. Builds
// without zlib have no gzip reader to fuzz.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "core/error.h"
#include "fuzz/fuzz_input.h"
#include "trace/kineto_reader.h"

#if PB_HAVE_ZLIB
#include <zlib.h>

namespace {

// RFC 1952 framing through deflateInit2's windowBits 15 + 16.
std::string gzipped(const std::uint8_t* data, std::size_t size) {
  z_stream z{};
  if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) std::abort();
  std::string out(deflateBound(&z, size) + 64, '\0');
  z.next_in = const_cast<Bytef*>(data);
  z.avail_in = static_cast<uInt>(size);
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  if (deflate(&z, Z_FINISH) != Z_STREAM_END) std::abort();
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  std::string file;
  if (data[0] % 2 == 0) {
    file = gzipped(data + 1, size - 1);
  } else {
    file.assign("\x1f\x8b", 2);  // always gzip: the magic bytes choose the decompressing reader
    file.append(reinterpret_cast<const char*>(data + 1), size - 1);
  }
  const std::string path =
      pipebench::fuzz::input_file("gzip_trace", reinterpret_cast<const std::uint8_t*>(file.data()), file.size());
  try {
    (void)pipebench::read_kineto_json(path, pipebench::TraceOptions{});
  } catch (const pipebench::UsageError&) {
  }
  return 0;
}

#else  // without zlib a gzip trace is refused by name (trace/gzip_stream.h): nothing to fuzz

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t*, std::size_t) { return 0; }

#endif
