// Definitions of costdsl/load_timing.hpp (see costdsl/detail/config.hpp).
#include <memory>
#include <utility>

#include "costdsl/gpu_catalog.hpp"
#include "costdsl/load_roofline_params.hpp"
#include "costdsl/load_timing.hpp"
#include "costdsl/profile_db.hpp"

namespace costdsl {

COSTDSL_DECL Timing load_timing(std::string_view gpu_name, TimingMode mode,
                                std::optional<std::filesystem::path> profile_dir,
                                const std::filesystem::path& data_dir) {
  const GpuCatalog catalog = GpuCatalog::load_default(data_dir);
  auto db = std::make_shared<ProfileDb>(profile_dir ? std::move(*profile_dir) : data_dir / "profiles");
  return Timing(catalog.find(gpu_name), load_default_roofline_params(data_dir), std::move(db), mode);
}

}  // namespace costdsl
