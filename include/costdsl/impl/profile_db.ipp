// Definitions of costdsl/profile_db.hpp (see costdsl/detail/config.hpp).
#include <array>
#include <cmath>
#include <system_error>

#include "costdsl/error.hpp"
#include "costdsl/interp/interp1d.hpp"
#include "costdsl/interp/interp2d.hpp"
#include "costdsl/interp/interp3d.hpp"
#include "costdsl/profile_db.hpp"

namespace costdsl {

COSTDSL_DECL const ProfileTable* ProfileDb::table(const std::string& gpu, const ProfileSchema& schema) {
  const std::filesystem::path file = root_ / gpu / (schema.kind + ".csv");
  auto it = tables_.find(file.string());
  if (it == tables_.end()) {
    std::unique_ptr<ProfileTable> t;
    std::error_code ec;
    if (std::filesystem::exists(file, ec)) t = std::make_unique<ProfileTable>(load_profile_csv(file, schema, &warnings_));
    it = tables_.emplace(file.string(), std::move(t)).first;
  }
  return it->second.get();
}

COSTDSL_DECL std::vector<BackendTables> ProfileDb::bind(const TableRequest& request) {
  std::vector<BackendTables> out(request.backends.size());
  const std::size_t dims = request.schema.inputs.size();
  if (dims < 1 || dims > 3)
    throw InputError("profile schema '" + request.schema.kind + "': " + std::to_string(dims) +
                     " input axes; interpolating caches have 1 to 3");
  const ProfileTable* t = table(request.gpu, request.schema);
  if (t == nullptr) return out;
  for (std::size_t b = 0; b < request.backends.size(); ++b) {
    const ProfileGroup* g = t->find(request.key, request.backends[b]);
    if (g == nullptr) continue;
    out[b].time = fitted(*t, *g, request, false);
    if (t->has_energy()) out[b].energy = fitted(*t, *g, request, true);
  }
  return out;
}

namespace detail {
// The samples of one group on the cache's axes (after the kind's change of axes).
template <class Cache, std::size_t D>
Cache fit_group(const ProfileGroup& g, const TableRequest& r, bool energy, std::vector<std::string>* warnings,
                const std::string& label) {
  std::vector<typename Cache::Sample> samples;
  samples.reserve(g.points.size());
  for (const ProfilePoint& p : g.points) {
    const double v = energy ? p.energy_j : p.time_ms;
    if (energy && std::isnan(v)) continue;  // energy not measured on this row
    std::array<double, D> c{};
    for (std::size_t d = 0; d < D; ++d) c[d] = p.inputs[d];
    if (r.to_cache != nullptr) r.to_cache(c.data());
    if constexpr (D == 1) samples.push_back({c[0], v});
    if constexpr (D == 2) samples.push_back({c[0], c[1], v});
    if constexpr (D == 3) samples.push_back({c[0], c[1], c[2], v});
  }
  std::array<interp::AxisSpec, D> axes;
  for (std::size_t d = 0; d < D; ++d) axes[d] = {r.schema.inputs[d], interp::AxisScale::detect};
  if constexpr (D == 1) return Cache::fit(samples, axes[0], warnings, label);
  if constexpr (D == 2) return Cache::fit(samples, axes[0], axes[1], r.off_grid, warnings, label);
  if constexpr (D == 3) return Cache::fit(samples, axes[0], axes[1], axes[2], warnings, label);
}
}  // namespace detail

COSTDSL_DECL std::shared_ptr<const void> ProfileDb::fitted(const ProfileTable& table, const ProfileGroup& group,
                                                          const TableRequest& request, bool energy) {
  const std::pair<const void*, bool> key{&group, energy};
  if (auto it = caches_.find(key); it != caches_.end()) return it->second;
  const std::string label = table.file() + " [" + group.key.backend + "]";
  std::shared_ptr<const void> cache;
  switch (request.schema.inputs.size()) {
    case 1:
      cache = std::make_shared<const interp::Interp1D>(
          detail::fit_group<interp::Interp1D, 1>(group, request, energy, &warnings_, label));
      break;
    case 2:
      cache = std::make_shared<const interp::Interp2D>(
          detail::fit_group<interp::Interp2D, 2>(group, request, energy, &warnings_, label));
      break;
    default:
      cache = std::make_shared<const interp::Interp3D>(
          detail::fit_group<interp::Interp3D, 3>(group, request, energy, &warnings_, label));
      break;
  }
  caches_.emplace(key, cache);
  return cache;
}

}  // namespace costdsl
