// Definitions of costdsl/profile_db.hpp (see costdsl/detail/config.hpp).
#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <string>
#include <system_error>
#include <utility>

#include "costdsl/detail/read_gzip_file.hpp"
#include "costdsl/error.hpp"
#include "costdsl/interp/interp1d.hpp"
#include "costdsl/interp/interp2d.hpp"
#include "costdsl/interp/interp3d.hpp"
#include "costdsl/profile_db.hpp"

namespace costdsl {

// A table file read once (gzip told by its magic bytes), or nullptr when there is none.
COSTDSL_DECL const ProfileTable* ProfileDb::cached_table(const std::filesystem::path& file,
                                                         const ProfileSchema& schema) {
  auto it = tables_.find(file.string());
  if (it == tables_.end()) {
    std::unique_ptr<ProfileTable> t;
    std::error_code ec;
    if (std::filesystem::exists(file, ec))
      t = std::make_unique<ProfileTable>(load_profile_csv_text(detail::read_maybe_gzip_file(file, "profile table"),
                                                               file.string(), schema, &warnings_));
    it = tables_.emplace(file.string(), std::move(t)).first;
  }
  return it->second.get();
}

COSTDSL_DECL const ProfileTable* ProfileDb::table(const std::string& gpu, const ProfileSchema& schema) {
  return cached_table(root_ / gpu / (schema.kind + ".csv"), schema);
}

COSTDSL_DECL const ProfileTable* ProfileDb::complete_table(const std::string& gpu, const ProfileSchema& schema) {
  return cached_table(root_ / "all" / gpu / (schema.kind + ".csv.gz"), schema);
}

COSTDSL_DECL const std::set<ProfileKey>* ProfileDb::complete_keys(const std::string& gpu,
                                                                  const ProfileSchema& schema) {
  const std::filesystem::path file = root_ / "all" / gpu / (schema.kind + ".configs");
  auto it = complete_keys_.find(file.string());
  if (it == complete_keys_.end()) {
    std::unique_ptr<std::set<ProfileKey>> keys;
    std::error_code ec;
    if (std::filesystem::exists(file, ec)) {
      keys = std::make_unique<std::set<ProfileKey>>();
      const std::string label = file.string();
      // An index written before a column with a default existed (Column::default_from,
      // Column::default_value) lists its configs without it: each takes the value of the
      // column it defaults to, or its constant.
      const auto defaulted = static_cast<std::size_t>(std::count_if(
          schema.config.begin(), schema.config.end(), [](const Column& c) { return c.has_default(); }));
      for_each_csv_line(detail::read_text_file(file, "profile table index"), label,
                        [&](std::size_t line, std::string_view, std::span<const CsvCell> cells) {
                          const bool older = defaulted > 0 && cells.size() + defaulted == schema.config.size() + 1;
                          if (cells.size() != schema.config.size() + 1 && !older)
                            throw DataError(label + ":" + std::to_string(line) + ": " + std::to_string(cells.size()) +
                                            " cells; an index line is the backend and the " +
                                            std::to_string(schema.config.size()) + " config columns of " +
                                            schema.kind);
                          ProfileKey k;
                          k.backend = std::string(cells[0].text);
                          std::size_t next = 1;
                          for (const Column& c : schema.config)
                            k.config.emplace_back(older && c.has_default() ? std::string_view(c.default_value)
                                                                           : cells[next++].text);
                          if (older)
                            for (std::size_t i = 0; i < schema.config.size(); ++i)
                              k.config[i] = k.config[schema.default_source(i)];
                          keys->insert(std::move(k));
                        });
    }
    it = complete_keys_.emplace(file.string(), std::move(keys)).first;
  }
  return it->second.get();
}

COSTDSL_DECL std::vector<BackendTables> ProfileDb::bind(const TableRequest& request) {
  std::vector<BackendTables> out(request.backends.size());
  const std::size_t dims = request.schema.inputs.size();
  if (dims < 1 || dims > 3)
    throw InputError("profile schema '" + request.schema.kind + "': " + std::to_string(dims) +
                     " input axes; interpolating caches have 1 to 3");
  if (!request.axis_scales.empty() && request.axis_scales.size() != dims)
    throw InputError("profile schema '" + request.schema.kind + "': " + std::to_string(request.axis_scales.size()) +
                     " axis scales for " + std::to_string(dims) + " input axes");
  if (!request.axis_alignment.empty() && request.axis_alignment.size() != dims)
    throw InputError("profile schema '" + request.schema.kind + "': " +
                     std::to_string(request.axis_alignment.size()) + " axis alignments for " + std::to_string(dims) +
                     " input axes");
  // The shipped table first (the config, or its measured neighbours blended); where it
  // answers no backend, the complete one (a superset: the same source, the same rows held
  // back), read only then, so the shipped models start as fast as without it. (A backend
  // the shipped table answers for no config, e.g. another framework's, is not a miss.)
  const auto answer = [&](const ProfileTable& t, std::size_t b) {
    if (const ProfileGroup* g = t.find(request.key, request.backends[b])) {
      out[b].time = {TableCorner{1.0, fitted(t, *g, request, false)}};
      out[b].provenance = g->provenance;
      if (t.has_energy()) out[b].energy = fitted(t, *g, request, true);
    } else if (!request.interpolated_config.empty()) {
      out[b] = between_configs(t, request, b);
    }
    return !out[b].time.empty();
  };
  bool answered = false;
  if (const ProfileTable* shipped = table(request.gpu, request.schema))
    for (std::size_t b = 0; b < request.backends.size(); ++b) answered = answer(*shipped, b) || answered;
  if (answered) return out;
  // The index says whether the complete table can help, without decompressing it.
  bool worth = !request.interpolated_config.empty();
  if (const std::set<ProfileKey>* keys = complete_keys(request.gpu, request.schema); keys == nullptr) {
    worth = true;
  } else {
    for (std::size_t b = 0; b < request.backends.size() && !worth; ++b)
      worth = keys->count(ProfileKey{request.key, request.backends[b]}) > 0;
  }
  if (worth)
    if (const ProfileTable* complete = complete_table(request.gpu, request.schema))
      for (std::size_t b = 0; b < request.backends.size(); ++b) answer(*complete, b);
  return out;
}

COSTDSL_DECL std::vector<std::vector<std::string>> ProfileDb::keys(const std::string& gpu, const ProfileSchema& schema,
                                                                  const std::string& backend) {
  std::vector<std::vector<std::string>> out;
  // Asked when neither table measures a config nor its neighbours (the nearest measured
  // config, scaled): every config measured, the complete table's where there is one (from
  // its index, without decompressing it).
  if (const std::set<ProfileKey>* keys = complete_keys(gpu, schema)) {
    for (const ProfileKey& k : *keys)
      if (k.backend == backend) out.push_back(k.config);
    return out;
  }
  const ProfileTable* t = complete_table(gpu, schema);
  if (t == nullptr) t = table(gpu, schema);
  if (t == nullptr) return out;
  for (const ProfileGroup& g : t->groups())
    if (g.key.backend == backend) out.push_back(g.key.config);
  return out;
}

// A config the table lacks whose interpolated columns (e.g. a GEMM's n, k) lie between
// measured configs with the same other columns: the multilinear blend of the 2^F
// neighbouring configs' tables, each queried at the same point. Past the measured range
// along a column the two outermost configs extrapolate linearly (flagged). Without every
// corner the backend stays unmeasured, and the roofline answers.
COSTDSL_DECL BackendTables ProfileDb::between_configs(const ProfileTable& table, const TableRequest& request,
                                                      std::size_t backend) {
  const std::size_t num_fields = request.interpolated_config.size();
  const auto& columns = request.schema.config;
  std::vector<std::size_t> field(num_fields);
  for (std::size_t f = 0; f < num_fields; ++f) {
    const auto it = std::find_if(columns.begin(), columns.end(),
                                 [&](const Column& c) { return c.name == request.interpolated_config[f]; });
    if (it == columns.end() || it->type != ColumnType::integer)
      throw InputError("profile schema '" + request.schema.kind + "': interpolated config column '" +
                       std::string(request.interpolated_config[f]) + "' is not an integer config column");
    field[f] = static_cast<std::size_t>(it - columns.begin());
  }
  const auto is_interpolated = [&](std::size_t i) { return std::find(field.begin(), field.end(), i) != field.end(); };
  // The backend's configs that agree on every other column, and their values along ours.
  std::vector<std::pair<std::vector<double>, const ProfileGroup*>> near;
  std::vector<std::vector<double>> values(num_fields);
  for (const ProfileGroup& g : table.groups()) {
    if (g.key.backend != request.backends[backend]) continue;
    bool same = true;
    for (std::size_t i = 0; i < request.key.size() && same; ++i)
      same = is_interpolated(i) || g.key.config[i] == request.key[i];
    if (!same) continue;
    std::vector<double> at(num_fields);
    for (std::size_t f = 0; f < num_fields; ++f) {
      at[f] = std::stod(g.key.config[field[f]]);  // integer columns hold canonical decimal text
      values[f].push_back(at[f]);
    }
    near.emplace_back(std::move(at), &g);
  }
  BackendTables out;
  if (near.empty()) return out;
  // Per column: the two measured values around ours (or the outermost two), our weight.
  std::vector<std::array<double, 2>> edge(num_fields);
  std::vector<double> weight(num_fields);
  for (std::size_t f = 0; f < num_fields; ++f) {
    auto& v = values[f];
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
    const double x = std::stod(request.key[field[f]]);
    if (std::binary_search(v.begin(), v.end(), x)) {
      edge[f] = {x, x};
      weight[f] = 0;
      continue;
    }
    if (v.size() == 1) return out;  // one other value: no direction to move in
    const std::size_t hi = std::clamp<std::size_t>(
        static_cast<std::size_t>(std::lower_bound(v.begin(), v.end(), x) - v.begin()), 1, v.size() - 1);
    edge[f] = {v[hi - 1], v[hi]};
    weight[f] = (x - v[hi - 1]) / (v[hi] - v[hi - 1]);
    out.extrapolated = out.extrapolated || weight[f] < 0 || weight[f] > 1;
  }
  for (std::size_t corner = 0; corner < (std::size_t{1} << num_fields); ++corner) {
    std::vector<double> at(num_fields);
    double w = 1;
    for (std::size_t f = 0; f < num_fields; ++f) {
      const bool up = ((corner >> f) & 1U) != 0;
      at[f] = edge[f][up ? 1 : 0];
      w *= up ? weight[f] : 1 - weight[f];
    }
    if (w == 0) continue;
    const auto it = std::find_if(near.begin(), near.end(), [&](const auto& e) { return e.first == at; });
    if (it == near.end()) return BackendTables{};  // a missing neighbour: no blend
    out.time.push_back(TableCorner{w, fitted(table, *it->second, request, false)});
    ProfileTable::add_provenance(out.provenance, it->second->provenance);
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
  for (std::size_t d = 0; d < D; ++d)
    axes[d] = {r.schema.inputs[d], r.axis_scales.empty() ? interp::AxisScale::detect : r.axis_scales[d],
               r.axis_alignment.empty() ? 0u : r.axis_alignment[d]};
  Cache cache = [&] {
    if constexpr (D == 1) return Cache::fit(samples, axes[0], warnings, label);
    if constexpr (D == 2) return Cache::fit(samples, axes[0], axes[1], r.off_grid, warnings, label);
    if constexpr (D == 3) return Cache::fit(samples, axes[0], axes[1], axes[2], warnings, label);
  }();
  // Energy tables keep their holes: the model time says nothing about joules.
  if constexpr (D > 1) {
    if (!energy && r.model_time)
      cache.estimate_missing([&](const std::array<double, D>& at) { return r.model_time(at); });
  }
  return cache;
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
