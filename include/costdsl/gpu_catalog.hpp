#pragma once
// The GPU catalog (data/gpus.json) and lookup of a GPU by any common name.
//
// Loading is strict: a missing or wrongly typed field is a DataError that names the
// GPU and the field, because a silently defaulted bandwidth would skew every number
// the cost model produces. The build compiles a copy of data/gpus.json in
// (costdsl/detail/shipped_data.hpp), so an installed costdsl works from any directory;
// a gpus.json in the data directory overrides it.
#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "costdsl/data_dir.hpp"
#include "costdsl/detail/config.hpp"
#include "costdsl/gpu_spec.hpp"

namespace costdsl {

namespace detail {
// A GPU name folded for lookup: case-insensitive, '-', '_' and ' ' the same separator.
COSTDSL_DECL std::string fold_gpu_name(std::string_view s);
}  // namespace detail

class GpuCatalog {
 public:
  // Parses gpus.json text; `origin` names the source in error messages.
  COSTDSL_DECL static GpuCatalog parse(std::string_view text, std::string_view origin = "gpus.json");
  COSTDSL_DECL static GpuCatalog load(const std::filesystem::path& file);
  // <data_dir>/gpus.json when that file exists, else the copy compiled in at build time.
  COSTDSL_DECL static GpuCatalog load_default(const std::filesystem::path& data_dir = default_data_dir());

  // Canonical name or any alias, case-insensitively; '-', '_' and ' ' are interchangeable.
  COSTDSL_DECL const GpuSpec& find(std::string_view name) const;
  COSTDSL_DECL bool contains(std::string_view name) const;
  const std::vector<GpuSpec>& gpus() const noexcept { return gpus_; }

 private:
  COSTDSL_DECL void add(GpuSpec g, std::string_view origin);

  std::vector<GpuSpec> gpus_;
  std::vector<std::pair<std::string, std::size_t>> index_;  // folded alias -> gpus_ index
};

}  // namespace costdsl

#if !defined(COSTDSL_SEPARATE_COMPILATION)
#include "costdsl/impl/gpu_catalog.ipp"
#endif
