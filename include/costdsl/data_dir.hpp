#pragma once
// Where the shipped data lives (gpus.json, roofline.json, models/, profiles/).
#include <cstdlib>
#include <filesystem>

#if __has_include("costdsl/detail/install_dirs.hpp")
#include "costdsl/detail/install_dirs.hpp"  // written by meson for the installed headers
#endif

namespace costdsl {

// $COSTDSL_DATA_DIR if set; else the COSTDSL_DATA_DIR string macro of this translation
// unit (in-tree builds point it at the source tree's data/); else the data directory
// of the installation these headers came from; else "data" relative to the working
// directory. Always inline, never in libcostdsl: it answers for the caller's build,
// and the loaders take the directory it returns as a default argument.
inline std::filesystem::path default_data_dir() {
  if (const char* env = std::getenv("COSTDSL_DATA_DIR"); env != nullptr && *env != '\0') return env;
#if defined(COSTDSL_DATA_DIR)
  return COSTDSL_DATA_DIR;
#elif defined(COSTDSL_INSTALLED_DATA_DIR)
  return COSTDSL_INSTALLED_DATA_DIR;
#else
  return "data";
#endif
}

}  // namespace costdsl
