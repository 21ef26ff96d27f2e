#pragma once
// Kernel<K>: an L1 kernel definition bound to a timing source. This is what a
// Leaf holds. Binding (build time) looks the config up in the profile DB and
// keeps the fitted caches of each candidate backend; eval (the hot path) is a
// few cache lookups, the best-of-N pick and the work formulas.
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "costdsl/concepts.hpp"
#include "costdsl/interp/interp1d.hpp"
#include "costdsl/interp/interp2d.hpp"
#include "costdsl/interp/interp3d.hpp"
#include "costdsl/kernel_def.hpp"
#include "costdsl/reflect.hpp"
#include "costdsl/timing.hpp"

namespace costdsl {

namespace detail {
template <std::size_t D>
struct cache_for;
template <>
struct cache_for<1> {
  using type = interp::Interp1D;
};
template <>
struct cache_for<2> {
  using type = interp::Interp2D;
};
template <>
struct cache_for<3> {
  using type = interp::Interp3D;
};
}  // namespace detail

// The profile-table schema of a kernel kind, from its reflected Config and axes.
template <KernelDef K>
ProfileSchema profile_schema() {
  ProfileSchema s{std::string(K::kind), {}, {}};
  typename K::Config c{};
  for_each_field(c, [&](std::string_view name, const auto& v) {
    using T = std::remove_cvref_t<decltype(v)>;
    s.config.push_back({std::string(name), is_numeric_field_v<T> ? ColumnType::integer : ColumnType::text});
  });
  for (std::string_view a : K::axes) s.inputs.emplace_back(a);
  return s;
}

// The config's key in its profile table: each field's text, in field order.
template <class Config>
std::vector<std::string> profile_key(const Config& c) {
  std::vector<std::string> key;
  for_each_field(c, [&](std::string_view, const auto& v) { key.push_back(field_text(v)); });
  return key;
}

template <KernelDef K>
class Kernel {
 public:
  static constexpr std::string_view kind = K::kind;
  static constexpr std::size_t dims = K::axes.size();
  using Def = K;
  using Config = typename K::Config;
  using Input = typename K::Input;
  using Cache = typename detail::cache_for<dims>::type;

  Kernel(const Timing& timing, Config config, std::vector<std::string> backends = K::default_backends())
      : config_(std::move(config)),
        backends_(std::move(backends)),
        gpu_(timing.gpu().name),
        roofline_(timing.roofline()),
        mode_(timing.mode()) {
    if constexpr (requires { K::validate(config_); }) K::validate(config_);
    if (backends_.empty()) throw ConfigError(std::string(kind) + ": the backend list is empty");
    if (backends_.size() >= no_backend) throw ConfigError(std::string(kind) + ": too many backends");
    if (mode_ != TimingMode::roofline && timing.profiles() != nullptr) bind_profiles(*timing.profiles());
  }

  // The hot path.
  Metrics eval(const Input& in) const {
    const double flops = K::flops(config_, in), bytes = K::bytes(config_, in);
    if (flops == 0 && bytes == 0) return Metrics{};  // nothing to do this iteration
    Coverage lost = Coverage::none;
    if (measured_) {
      const auto coords = detail::to_cache<K>(K::point(config_, in));
      double best = std::numeric_limits<double>::infinity();
      Coverage best_cov = Coverage::none;
      std::uint8_t best_backend = no_backend;
      for (std::size_t b = 0; b < backends_.size(); ++b) {
        const Bound& bound = bound_[b];
        if (bound.corners.empty()) continue;
        double value = 0;
        Coverage cov = bound.coverage;
        bool answered = true;
        for (const Corner& corner : bound.corners) {  // one corner unless the config interpolates
          const Cache* c = corner.cache.get();
          const interp::Interpolated r = std::apply([&](auto... x) { return c->query(x...); }, coords);
          answered = answered && !has(r.coverage, Coverage::no_coverage);
          value += corner.weight * r.value;
          cov |= r.coverage;
        }
        // A blend that extrapolates to nothing is no answer; a bounded backend exists only
        // where it was measured: off its grid it has no answer either.
        if (!answered || (bound.corners.size() > 1 && !(value > 0)) ||
            (bound.bounded && has(cov, Coverage::extrapolated)))
          continue;
        if (value < best) {
          best = value;
          best_cov = cov;
          best_backend = static_cast<std::uint8_t>(b);
        }
      }
      if (best_backend != no_backend) {
        const double n = detail::calls<K>(in);
        Metrics m{best * 1e-3 * n, flops, bytes, 0, best_cov, best_backend};
        const Cache* e = best_backend < energy_caches_.size() ? energy_caches_[best_backend].get() : nullptr;
        const auto er = e ? std::apply([&](auto... x) { return e->query(x...); }, coords) : interp::Interpolated{};
        m.energy_j = (e && !has(er.coverage, Coverage::no_coverage))
                         ? er.value * n
                         : roofline_->energy_j(m.time_s, K::lower_bound_s(*roofline_, config_, in));
        return m;
      }
      lost = Coverage::no_coverage;  // measured, but no table could answer this query
    }
    if (mode_ == TimingMode::profile) return Metrics{0, flops, bytes, 0, Coverage::no_coverage, no_backend};
    Metrics m = K::roofline(*roofline_, config_, in);
    m.flops = flops;
    m.bytes = bytes;
    m.coverage |= Coverage::analytic | lost;
    m.backend = no_backend;
    return m;
  }

  // Work at the hardware roof for this call (the "where the time goes" view).
  double lower_bound_s(const Input& in) const { return K::lower_bound_s(*roofline_, config_, in); }

  std::vector<ConfigField> config_fields() const {
    auto fields = reflect_fields(config_);
    fields.push_back({"gpu", gpu_});
    return fields;
  }
  const std::vector<std::string>& backends() const noexcept { return backends_; }
  const Config& config() const noexcept { return config_; }
  const std::string& gpu() const noexcept { return gpu_; }
  // "profile" when at least one backend has a measured table for this config.
  std::string_view source() const noexcept { return measured_ ? "profile" : "roofline"; }

 private:
  void bind_profiles(ProfileDb& db) {
    const ProfileTable* table = db.table(gpu_, profile_schema<K>());
    bound_.resize(backends_.size());
    energy_caches_.resize(backends_.size());
    for (std::size_t b = 0; b < backends_.size(); ++b) {
      if constexpr (requires { K::bounded_backend(std::string_view{}); })
        bound_[b].bounded = K::bounded_backend(backends_[b]);
    }
    if (table == nullptr) return;
    const auto key = profile_key(config_);
    for (std::size_t b = 0; b < backends_.size(); ++b) {
      const ProfileGroup* g = table->find(key, backends_[b]);
      if (g == nullptr) {
        if constexpr (requires { K::interpolated_config; }) bind_between_configs(db, *table, key, b);
        continue;
      }
      bound_[b].corners = {Corner{1.0, group_cache(db, *table, *g, b)}};
      if (table->has_energy())
        energy_caches_[b] = db.cache<Cache>(*g, "energy_j", [&](auto* w) { return fit(*g, true, w, label(*table, b)); });
      measured_ = true;
    }
  }

  std::string label(const ProfileTable& table, std::size_t b) const { return table.file() + " [" + backends_[b] + "]"; }
  std::shared_ptr<const Cache> group_cache(ProfileDb& db, const ProfileTable& table, const ProfileGroup& g,
                                           std::size_t b) const {
    return db.cache<Cache>(g, "time_ms", [&](auto* w) { return fit(g, false, w, label(table, b)); });
  }

  // A config the table lacks, whose K::interpolated_config fields (e.g. a GEMM's n, k) lie
  // between measured configs with the same other fields: the value is the multilinear blend
  // of the 2^F neighbouring configs' tables (each queried at the same point). Past the
  // measured range along a field the two outermost configs extrapolate linearly, flagged
  // EXTRAPOLATED. Without all corners the backend stays unmeasured (the roofline answers).
  void bind_between_configs(ProfileDb& db, const ProfileTable& table, const std::vector<std::string>& key,
                            std::size_t b) {
    constexpr std::size_t F = std::tuple_size_v<std::remove_cvref_t<decltype(K::interpolated_config)>>;
    const std::vector<std::string> names = field_names<Config>();
    std::array<std::size_t, F> field{};
    for (std::size_t f = 0; f < F; ++f)
      field[f] = static_cast<std::size_t>(std::find(names.begin(), names.end(), K::interpolated_config[f]) -
                                          names.begin());
    auto is_interpolated = [&](std::size_t i) { return std::find(field.begin(), field.end(), i) != field.end(); };
    // The candidate configs: same backend, same fixed fields; their interpolated values.
    std::vector<std::pair<std::array<double, F>, const ProfileGroup*>> near;
    std::array<std::vector<double>, F> values;
    for (const ProfileGroup& g : table.groups()) {
      if (g.key.backend != backends_[b]) continue;
      bool same = true;
      for (std::size_t i = 0; i < key.size() && same; ++i) same = is_interpolated(i) || g.key.config[i] == key[i];
      if (!same) continue;
      std::array<double, F> at{};
      for (std::size_t f = 0; f < F; ++f) {
        at[f] = std::stod(g.key.config[field[f]]);  // integer columns: canonical decimal text
        values[f].push_back(at[f]);
      }
      near.emplace_back(at, &g);
    }
    if (near.empty()) return;
    // Per field: the two grid values around ours (or the outermost two) and our weight.
    std::array<std::array<double, 2>, F> edge{};
    std::array<double, F> t{};
    bool outside = false;
    for (std::size_t f = 0; f < F; ++f) {
      auto& v = values[f];
      std::sort(v.begin(), v.end());
      v.erase(std::unique(v.begin(), v.end()), v.end());
      const double x = std::stod(key[field[f]]);
      if (std::binary_search(v.begin(), v.end(), x)) {  // measured along this field
        edge[f] = {x, x};
        t[f] = 0;
        continue;
      }
      if (v.size() == 1) return;  // one other value: no direction to move in
      std::size_t hi = static_cast<std::size_t>(std::lower_bound(v.begin(), v.end(), x) - v.begin());
      hi = std::clamp<std::size_t>(hi, 1, v.size() - 1);
      edge[f] = {v[hi - 1], v[hi]};
      t[f] = (x - v[hi - 1]) / (v[hi] - v[hi - 1]);
      outside = outside || t[f] < 0 || t[f] > 1;
    }
    std::vector<Corner> corners;
    for (std::size_t c = 0; c < (std::size_t{1} << F); ++c) {
      std::array<double, F> at{};
      double w = 1;
      for (std::size_t f = 0; f < F; ++f) {
        const bool up = ((c >> f) & 1U) != 0;
        at[f] = edge[f][up ? 1 : 0];
        w *= up ? t[f] : 1 - t[f];
      }
      if (w == 0) continue;
      const auto it = std::find_if(near.begin(), near.end(), [&](const auto& e) { return e.first == at; });
      if (it == near.end()) return;  // a missing neighbour: no blend
      corners.push_back(Corner{w, group_cache(db, table, *it->second, b)});
    }
    bound_[b].corners = std::move(corners);
    if (outside) bound_[b].coverage |= Coverage::extrapolated;
    measured_ = true;
  }

  static Cache fit(const ProfileGroup& g, bool energy, std::vector<std::string>* warnings, const std::string& label) {
    std::vector<typename Cache::Sample> samples;
    for (const ProfilePoint& p : g.points) {
      std::array<double, dims> raw{};
      for (std::size_t d = 0; d < dims; ++d) raw[d] = p.inputs[d];
      const auto c = detail::to_cache<K>(raw);
      const double v = energy ? p.energy_j : p.time_ms;
      if (energy && std::isnan(v)) continue;
      samples.push_back(std::apply([&](auto... x) { return typename Cache::Sample{x..., v}; }, c));
    }
    std::array<interp::AxisSpec, dims> axes;
    for (std::size_t d = 0; d < dims; ++d) axes[d] = {std::string(K::axes[d]), interp::AxisScale::detect};
    // A kind whose time grows linearly along an axis (an additive load: requests, KV tokens,
    // rows, bytes) says so: on a doubling grid, log weights would put a midpoint 25% high.
    if constexpr (requires { K::axis_scales; })
      for (std::size_t d = 0; d < dims; ++d) axes[d].scale = K::axis_scales[d];
    if constexpr (dims == 1) {
      return Cache::fit(samples, axes[0], warnings, label);
    } else if constexpr (dims == 2) {
      return Cache::fit(samples, axes[0], axes[1], detail::off_grid<K>(), warnings, label);
    } else {
      return Cache::fit(samples, axes[0], axes[1], axes[2], warnings, label);
    }
  }

  Config config_;
  std::vector<std::string> backends_;
  std::string gpu_;
  std::shared_ptr<const Roofline> roofline_;
  TimingMode mode_;
  bool measured_ = false;
  // What one backend answers from: its config's table, or the weighted tables of the
  // neighbouring configs (bind_between_configs); a bounded backend (K::bounded_backend)
  // answers only on its measured grid.
  struct Corner {
    double weight = 1;
    std::shared_ptr<const Cache> cache;
  };
  struct Bound {
    std::vector<Corner> corners;  // empty: not measured
    Coverage coverage = Coverage::none;
    bool bounded = false;
  };
  std::vector<Bound> bound_;
  std::vector<std::shared_ptr<const Cache>> energy_caches_;  // exact configs only
};

}  // namespace costdsl
