#pragma once
// Reading a HuggingFace config.json into an HfConfig (strict: not valid JSON, or not
// a JSON object, is a DataError naming the file).
#include <filesystem>
#include <string>
#include <string_view>

#include "costdsl/detail/config.hpp"
#include "costdsl/hf_config.hpp"

namespace costdsl {

COSTDSL_DECL HfConfig parse_hf_config(std::string_view text, std::string file);
COSTDSL_DECL HfConfig load_hf_config(const std::filesystem::path& path);

}  // namespace costdsl

#if !defined(COSTDSL_SEPARATE_COMPILATION)
#include "costdsl/impl/load_hf_config.ipp"
#endif
