#pragma once
// Reading roofline parameters (data/roofline.json, written by
// scripts/calibrate_roofline.py). Strict: every field present and numeric, each keeping
// its rule (efficiencies in (0, 1], sizes > 0, ...: detail/roofline_param_fields.hpp);
// an error names the file, the field's dotted path, the rule and the value. The
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
// `base` with some of its numbers replaced: `json_text` is an object shaped like
// roofline.json holding any subset of its fields ({"gemm": {"overlap_p": 2.5}}). Each
// value keeps the file's rule for its field, and a name that is no field is an error (a
// misspelt one would otherwise leave its parameter at the base value unnoticed). The
// fitter (scripts/calibrate_roofline.py) sends these to `costdsl roofline serve`.
COSTDSL_DECL RooflineParams apply_roofline_params_patch(const RooflineParams& base, std::string_view json_text,
                                                        std::string_view origin = "parameters");
// <data_dir>/roofline.json when that file exists, else the copy compiled in at build time.
COSTDSL_DECL RooflineParams load_default_roofline_params(const std::filesystem::path& data_dir = default_data_dir());

}  // namespace costdsl

#if !defined(COSTDSL_SEPARATE_COMPILATION)
#include "costdsl/impl/load_roofline_params.ipp"
#endif
