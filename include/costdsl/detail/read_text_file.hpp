#pragma once
// One file read whole, for the loaders of every data format (profile tables, model
// configs, measurement tables): each names its file in every error, and a directory or an
// unreadable path is reported as such instead of being parsed as an empty file.
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>

#include <fmt/format.h>

#include "costdsl/error.hpp"

namespace costdsl::detail {

// Throws DataError "PATH: is a directory, not a WHAT", "PATH: cannot open the WHAT" or
// "PATH: read error".
inline std::string read_text_file(const std::filesystem::path& path, std::string_view what) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw DataError(fmt::format("{}: is a directory, not a {}", path.string(), what));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw DataError(fmt::format("{}: cannot open the {}", path.string(), what));
  std::ostringstream buf;
  buf << in.rdbuf();
  if (in.bad()) throw DataError(fmt::format("{}: read error", path.string()));
  return std::move(buf).str();
}

}  // namespace costdsl::detail
