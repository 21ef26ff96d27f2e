#pragma once
// Reading roofline parameters (data/roofline.json, written by
// scripts/calibrate_roofline.py). Strict: every field present and numeric,
// efficiencies in (0, 1]; an error names the file and the field's dotted path. The
// build compiles a copy of data/roofline.json in, so an installed costdsl works from
// any directory; a roofline.json in the data directory overrides it.
#include <filesystem>
#include <string_view>

#include "costdsl/data_dir.hpp"
#include "costdsl/detail/config.hpp"
#include "costdsl/roofline_params.hpp"

namespace costdsl {

COSTDSL_DECL RooflineParams parse_roofline_params(std::string_view text, std::string_view origin = "roofline.json");
COSTDSL_DECL RooflineParams load_roofline_params(const std::filesystem::path& file);
// <data_dir>/roofline.json when that file exists, else the copy compiled in at build time.
COSTDSL_DECL RooflineParams load_default_roofline_params(const std::filesystem::path& data_dir = default_data_dir());

}  // namespace costdsl

#if !defined(COSTDSL_SEPARATE_COMPILATION)
#include "costdsl/impl/load_roofline_params.ipp"
#endif
