#pragma once
// Strict reading of a HuggingFace config.json: every error names the file, the
// key, the value and the rule.
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "costdsl/dtype.hpp"
#include "costdsl/error.hpp"

namespace costdsl {

class HfConfig {
 public:
  HfConfig(nlohmann::json j, std::string file) : j_(std::move(j)), file_(std::move(file)) {
    if (!j_.is_object())
      throw DataError(file_ + ": a config.json must hold a JSON object, got " + std::string(j_.type_name()));
  }

  static HfConfig parse(std::string_view text, std::string file) {
    // Parse before handing `file` on: moving it into the constructor's argument list
    // first (argument order is unspecified) left the message without the file name.
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(text);
    } catch (const nlohmann::json::exception& e) {  // parse_error, and out_of_range for a number too large
      throw DataError(file + ": not valid JSON (" + e.what() + ")");
    }
    return HfConfig(std::move(j), std::move(file));
  }
  static HfConfig load(const std::filesystem::path& path) {
    std::ifstream in(path);
    if (!in) throw DataError(path.string() + ": cannot open the model config");
    std::stringstream buf;
    buf << in.rdbuf();
    return parse(buf.str(), path.string());
  }

  const std::string& file() const noexcept { return file_; }
  bool has(std::string_view key) const { return j_.contains(std::string(key)) && !j_.at(std::string(key)).is_null(); }

  // A positive integer that fits in 32 bits (dims, counts).
  std::uint32_t dim(std::string_view key, std::optional<std::uint32_t> fallback = std::nullopt) const {
    const std::string k(key);
    if (!has(key)) {
      if (fallback) return *fallback;
      throw DataError(file_ + ": missing key '" + k + "'");
    }
    const auto& v = j_.at(k);
    if (!v.is_number_integer())
      throw DataError(file_ + ": '" + k + "' must be an integer, got " + v.dump());
    // An integer above 2^63-1 is stored unsigned: reading it as int64 would wrap it
    // to a negative and name the wrong value.
    if (v.is_number_unsigned()) {
      const auto u = v.get<std::uint64_t>();
      if (u == 0) throw DataError(file_ + ": '" + k + "' is 0; it must be at least 1");
      if (u > std::numeric_limits<std::uint32_t>::max())
        throw DataError(file_ + ": '" + k + "' is " + std::to_string(u) + "; it must fit in 32 bits");
      return static_cast<std::uint32_t>(u);
    }
    const auto x = v.get<std::int64_t>();
    if (x <= 0) throw DataError(file_ + ": '" + k + "' is " + std::to_string(x) + "; it must be at least 1");
    if (x > std::numeric_limits<std::uint32_t>::max())
      throw DataError(file_ + ": '" + k + "' is " + std::to_string(x) + "; it must fit in 32 bits");
    return static_cast<std::uint32_t>(x);
  }

  // The weights' dtype from torch_dtype (bf16 when absent).
  Dtype dtype(std::string_view key = "torch_dtype") const {
    if (!has(key)) return Dtype::bf16;
    const auto& v = j_.at(std::string(key));
    if (!v.is_string()) throw DataError(file_ + ": '" + std::string(key) + "' must be a string, got " + v.dump());
    try {
      return parse_dtype(v.get<std::string>(), key);
    } catch (const InputError& e) {
      throw DataError(file_ + ": " + e.what());
    }
  }

  std::string text(std::string_view key) const {
    if (!has(key)) throw DataError(file_ + ": missing key '" + std::string(key) + "'");
    const auto& v = j_.at(std::string(key));
    if (!v.is_string()) throw DataError(file_ + ": '" + std::string(key) + "' must be a string, got " + v.dump());
    return v.get<std::string>();
  }

 private:
  nlohmann::json j_;
  std::string file_;
};

}  // namespace costdsl
