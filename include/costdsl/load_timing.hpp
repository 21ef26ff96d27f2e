#pragma once
// A Timing from the shipped data: the GPU from gpus.json, the roofline parameters from
// roofline.json (both compiled in at build time, the files in the data directory
// overriding them) and the measured tables of data/profiles/ (or profile_dir).
//
//   const costdsl::Timing t = costdsl::load_timing("h200");
#include <filesystem>
#include <optional>
#include <string_view>

#include "costdsl/data_dir.hpp"
#include "costdsl/detail/config.hpp"
#include "costdsl/timing.hpp"

namespace costdsl {

// data_dir defaults to default_data_dir() of the calling translation unit.
COSTDSL_DECL Timing load_timing(std::string_view gpu_name, TimingMode mode = TimingMode::automatic,
                                std::optional<std::filesystem::path> profile_dir = std::nullopt,
                                const std::filesystem::path& data_dir = default_data_dir());

}  // namespace costdsl

#if !defined(COSTDSL_SEPARATE_COMPILATION)
#include "costdsl/impl/load_timing.ipp"
#endif
