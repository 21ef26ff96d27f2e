#pragma once
// A data file read whole and, when it is gzip, decompressed: NVIDIA aiconfigurator ships
// most of its TensorRT-LLM and vLLM tables as .csv.gz, and costdsl its complete profile
// tables (data/profiles/all/, ProfileDb::complete_table). Gzip is told by its magic bytes
// (1f 8b), not by the name, so a renamed file reads the same. Needs zlib (-lz).
//
// A damaged stream is a DataError naming the file and what zlib found, never a table cut
// short: a truncated file, a corrupt block or a wrong CRC / length in a member's trailer.
#include <zlib.h>

#include <algorithm>
#include <climits>
#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "costdsl/detail/read_text_file.hpp"
#include "costdsl/error.hpp"

namespace costdsl::detail {

inline bool is_gzip(std::string_view data) noexcept {
  return data.size() >= 2 && static_cast<unsigned char>(data[0]) == 0x1f && static_cast<unsigned char>(data[1]) == 0x8b;
}

// The text of gzip data (RFC 1952), every member of a multi-member file in order (what
// `cat a.gz b.gz` and pigz write). Output grows in chunks, so no size is trusted from
// the trailer (ISIZE is the length mod 2^32) and the input may be any size. `max_bytes`
// bounds the text (a few-KB bomb would otherwise take all memory): past it, a DataError.
// `file` names the source in messages.
inline std::string gunzip(std::string_view data, std::string_view file,
                          std::size_t max_bytes = std::size_t{1} << 30) {
  z_stream z{};
  // 16 + MAX_WBITS: a gzip wrapper (not zlib's, not raw deflate), the largest window.
  if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK)
    throw DataError(fmt::format("{}: cannot start gzip decompression: {}", file,
                                z.msg != nullptr ? z.msg : "zlib's inflateInit2 failed"));
  struct End {
    z_stream& z;
    ~End() { inflateEnd(&z); }
  } end{z};
  std::string out;
  std::size_t in_pos = 0, member = 1;
  constexpr std::size_t chunk = std::size_t{1} << 18;
  // zlib counts in uInt (32 bits): feed the input in pieces it can hold.
  auto feed = [&] {
    if (z.avail_in == 0 && in_pos < data.size()) {
      const std::size_t n = std::min<std::size_t>(data.size() - in_pos, UINT_MAX);
      z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data() + in_pos));
      z.avail_in = static_cast<uInt>(n);
      in_pos += n;
    }
  };
  for (;;) {
    feed();
    const std::size_t used = out.size();
    if (used >= max_bytes)
      throw DataError(fmt::format("{}: gzip stream decompresses to more than {} bytes of text", file, max_bytes));
    out.resize(used + chunk);
    z.next_out = reinterpret_cast<Bytef*>(out.data() + used);
    z.avail_out = static_cast<uInt>(chunk);
    const int rc = inflate(&z, Z_NO_FLUSH);
    out.resize(used + (chunk - z.avail_out));
    const std::size_t consumed = in_pos - z.avail_in;
    if (rc == Z_STREAM_END) {
      // The member ended (its CRC and length checked). More input: the next member.
      if (consumed == data.size()) return out;
      if (inflateReset(&z) != Z_OK) throw DataError(fmt::format("{}: cannot reset gzip decompression", file));
      ++member;
      continue;
    }
    if (rc == Z_OK) continue;
    if (rc == Z_BUF_ERROR && consumed == data.size())  // no progress possible: the input ended mid-stream
      throw DataError(fmt::format("{}: truncated gzip stream after {} bytes of text{}", file, out.size(),
                                  member > 1 ? fmt::format(" (member {})", member) : std::string()));
    if (rc == Z_MEM_ERROR) throw DataError(fmt::format("{}: out of memory decompressing gzip", file));
    // Z_DATA_ERROR (corrupt data, a wrong check value, trailing garbage read as a member)
    // or Z_NEED_DICT / Z_STREAM_ERROR: zlib's own words, where in the input, and how far the text got.
    const std::string why = z.msg != nullptr ? std::string(z.msg) : fmt::format("inflate error {}", rc);
    throw DataError(fmt::format("{}: corrupt gzip stream at byte {} (member {}, after {} bytes of text): {}", file,
                                consumed, member, out.size(), why));
  }
}

// read_text_file, decompressed when the file is gzip (its first two bytes 1f 8b). Errors:
// read_text_file's, and gunzip's naming PATH.
inline std::string read_maybe_gzip_file(const std::filesystem::path& path, std::string_view what) {
  std::string raw = read_text_file(path, what);
  if (!is_gzip(raw)) return raw;
  return gunzip(raw, path.string());
}

}  // namespace costdsl::detail
