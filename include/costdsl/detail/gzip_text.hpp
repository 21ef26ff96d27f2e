#pragma once
// Text compressed as one gzip member (RFC 1952): what `costdsl import --gzip` writes for the
// complete profile tables (data/profiles/all/), read back by detail::gunzip. The header's
// time is 0, so the same table always compresses to the same bytes (a re-import diffs clean).
#include <zlib.h>

#include <climits>
#include <cstddef>
#include <string>
#include <string_view>

#include "costdsl/error.hpp"

namespace costdsl::detail {

inline std::string gzip_text(std::string_view text) {
  z_stream z{};
  // 16 + MAX_WBITS: a gzip wrapper; level 9 and the default memory: a table compresses ~10×.
  if (deflateInit2(&z, Z_BEST_COMPRESSION, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    throw Error("gzip: cannot start compression");
  struct End {
    z_stream& z;
    ~End() { deflateEnd(&z); }
  } end{z};
  if (text.size() > UINT_MAX) throw Error("gzip: a table of more than 4 GB");
  std::string out(deflateBound(&z, static_cast<uLong>(text.size())), '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  z.avail_in = static_cast<uInt>(text.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  if (deflate(&z, Z_FINISH) != Z_STREAM_END) throw Error("gzip: compression did not finish");
  out.resize(out.size() - z.avail_out);
  return out;
}

}  // namespace costdsl::detail
