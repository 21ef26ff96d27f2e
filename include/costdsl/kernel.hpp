#pragma once
// Kernel<K>: an L1 kernel definition bound to a timing source. This is what a
// Leaf holds. Binding (build time) looks the config up in the profile DB and
// keeps the fitted caches of each candidate backend; eval (the hot path) is a
// few cache lookups, the best-of-N pick and the work formulas.
#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "costdsl/concepts.hpp"
#include "costdsl/config_field.hpp"
#include "costdsl/detail/analytic_memo.hpp"
#include "costdsl/detail/inline.hpp"
#include "costdsl/detail/kernel_binding.hpp"
#include "costdsl/error.hpp"
#include "costdsl/interp/interp1d.hpp"
#include "costdsl/interp/interp2d.hpp"
#include "costdsl/interp/interp3d.hpp"
#include "costdsl/kernel_def.hpp"
#include "costdsl/quantities.hpp"
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
// An input of one count (std::uint64_t) field: a GEMM's m, a norm's tokens. Such a leaf's
// analytic answers can be remembered by the count (AnalyticMemo).
template <class Input>
consteval bool is_count_input() {
  if constexpr (!Reflected<Input>) {
    return false;
  } else {
    Input in{};
    int fields = 0, counts = 0;
    for_each_field(in, [&](std::string_view, auto& v) {
      ++fields;
      counts += std::is_same_v<std::remove_cvref_t<decltype(v)>, std::uint64_t> ? 1 : 0;
    });
    return fields == 1 && counts == 1;
  }
}
template <class Input>
inline constexpr bool count_input = is_count_input<Input>();

template <class Input>
COSTDSL_INLINE std::uint64_t count_of(const Input& in) noexcept {
  std::uint64_t count = 0;
  for_each_field(in, [&](std::string_view, const std::uint64_t& v) { count = v; });
  return count;
}

// A kind whose input is a count with a refinement (a grouped GEMM's or fused MoE's active
// experts) says which count an input is (K::memo_count: one count per distinct input of its
// config), or no_memo_count: such inputs take the general path, the others share the memo.
template <class K>
inline constexpr bool memoisable =
    count_input<typename K::Input> || requires(const typename K::Config& c, const typename K::Input& in) {
      { K::memo_count(c, in) } -> std::same_as<std::uint64_t>;
    };
template <class K>
COSTDSL_INLINE std::uint64_t memo_count(const typename K::Config& c, const typename K::Input& in) noexcept {
  if constexpr (count_input<typename K::Input>) {
    return count_of(in);
  } else if constexpr (memoisable<K>) {
    return K::memo_count(c, in);
  } else {
    return no_memo_count;  // Kernel<K> instantiated whole (src/kernels.cpp): eval_memo is never called
  }
}

}  // namespace detail

// A config field its kind's tables have no column for (Config::untabled lists them): it
// shapes the work, but every table row was measured at one value of it, the one the
// kind's tables_hold(config) accepts. A config the tables do not hold binds no table
// and evaluates on the roofline (Coverage::analytic), as any unmeasured config does,
// never on a table measured for other work.
template <class Config>
bool untabled_field(std::string_view name) {
  if constexpr (requires { Config::untabled; }) {
    for (std::string_view u : Config::untabled)
      if (u == name) return true;
  }
  return false;
}

// The profile-table schema of a kernel kind, from its reflected Config and axes.
template <KernelDef K>
ProfileSchema profile_schema() {
  ProfileSchema s{std::string(K::kind), {}, {}};
  typename K::Config c{};
  for_each_field(c, [&](std::string_view name, const auto& v) {
    using T = std::remove_cvref_t<decltype(v)>;
    if (untabled_field<typename K::Config>(name)) return;
    s.config.emplace_back(std::string(name), is_numeric_field_v<T> ? ColumnType::integer : ColumnType::text);
    if constexpr (requires { K::Config::column_defaults; }) {
      for (const auto& [column, from] : K::Config::column_defaults)
        if (column == name) s.config.back().default_from = std::string(from);
    }
    if constexpr (requires { K::Config::column_default_values; }) {
      for (const auto& [column, value] : K::Config::column_default_values)
        if (column == name) s.config.back().default_value = std::string(value);
    }
  });
  for (std::string_view a : K::axes) s.inputs.emplace_back(a);
  return s;
}

// The config's key in its profile table: each tabled field's text, in field order.
template <class Config>
std::vector<std::string> profile_key(const Config& c) {
  std::vector<std::string> key;
  for_each_field(c, [&](std::string_view name, const auto& v) {
    if (!untabled_field<Config>(name)) key.push_back(field_text(v));
  });
  return key;
}

// Can the kind's tables hold this config at all (see untabled_field)?
template <KernelDef K>
bool tables_hold(const typename K::Config& c) {
  if constexpr (requires { K::tables_hold(c); }) {
    return K::tables_hold(c);
  } else {
    return true;
  }
}

template <KernelDef K>
class Kernel : public detail::KernelBinding {
 public:
  static constexpr std::string_view kind = K::kind;
  static constexpr Family family = K::family;
  static constexpr std::size_t dims = K::axes.size();
  using Def = K;
  using Config = typename K::Config;
  using Input = typename K::Input;
  using Cache = typename detail::cache_for<dims>::type;

  // Build time: binds the config to its backends' tables (defined below the class, out of
  // line, so that libcostdsl-compiled can compile it once per shipped kind: src/kernels.cpp).
  Kernel(const Timing& timing, Config config, std::vector<std::string> backends = K::default_backends());

  // The hot path. Energy (a second table query or the roofline's estimate) only when
  // asked for: evaluate() asks for time and work; a direct call gets everything.
  // A leaf whose config binds exactly one table (one backend measured, no blend: every
  // leaf of a profiled model but blended GEMM configs) takes the short path bind time
  // chose, inlined into the caller's fold; it gives bitwise what the general path gives.
  template <Quantities Q = Quantities::with_energy>
  COSTDSL_INLINE Metrics eval(const Input& in) const {
    if constexpr (Q == Quantities::time_and_work) {
      if (sole_.cache != nullptr) {
        const double flops = K::flops(config_, in), bytes = K::bytes(config_, in);
        if (flops == 0 && bytes == 0) return Metrics{};
        const interp::Interpolated r = query(sole_.cache, detail::to_cache<K>(K::point(config_, in)));
        const Coverage cov = sole_.coverage | r.coverage;
        // An extrapolated answer takes the general path, which floors it at the hardware bound.
        if (!has(r.coverage, Coverage::no_coverage) && !outside_bounds(sole_.bounded, cov) &&
            !has(cov, Coverage::extrapolated))
          return Metrics{sole_.weight * r.value * 1e-3 * detail::calls<K>(in), flops, bytes, 0, cov, sole_.backend};
        // no answer from the one table: the general path says what the leaf falls back to
      }
      if constexpr (detail::memoisable<K>) {
        if (memo_ != nullptr) return eval_memo(in);
      }
    }
    return eval_general(in, Q == Quantities::with_energy);
  }

  // Work at the hardware roof for this call (the "where the time goes" view).
  double lower_bound_s(const Input& in) const { return K::lower_bound_s(*roofline_, config_, in); }

  std::vector<ConfigField> config_fields() const {
    auto fields = reflect_fields(config_);
    for (ConfigField& f : fields) f.tabled = !untabled_field<Config>(f.name);
    fields.push_back({"gpu", gpu_});
    return fields;
  }
  const Config& config() const noexcept { return config_; }

 private:
  // Every backend's answer, the best one picked; the roofline where none answers. Not a
  // template (energy is a flag): src/kernels.cpp compiles it once per shipped kind, so a
  // translation unit in separate compilation does not generate it, nor the roofline
  // formulas it calls, for every kind it uses.
  Metrics eval_general(const Input& in, bool with_energy) const;

  // An analytic leaf with a count input (detail::memoisable): the remembered time with the work formulas, or
  // the general path's answer, its time remembered when it is what a hit rebuilds bitwise
  // (time, the work formulas, Coverage::analytic, no backend, no energy). Out of the fold,
  // so that leaves with tables, which never take it, keep their inlined code as small as
  // it was (a hit pays a call: ~1% of serve_sim's iteration, bench/README.md).
  [[gnu::noinline]] Metrics eval_memo(const Input& in) const {
    const std::uint64_t count = detail::memo_count<K>(config_, in);
    if (count >= memo_->capacity()) return eval_general(in, false);  // no_memo_count too
    if (const double t = memo_->find(count); t != 0)
      return Metrics{t, K::flops(config_, in), K::bytes(config_, in), 0, Coverage::analytic, no_backend};
    const Metrics m = eval_general(in, false);
    if (m.coverage == Coverage::analytic && m.backend == no_backend && m.energy_j == 0 &&
        m.flops == K::flops(config_, in) && m.bytes == K::bytes(config_, in))
      memo_->store(count, m.time_s);
    return m;
  }

  // A bounded backend (K::bounded_backend) exists only where it was measured: off its grid
  // it has no answer. One rule for both paths.
  static constexpr bool outside_bounds(bool bounded, Coverage cov) noexcept {
    return bounded && has(cov, Coverage::extrapolated);
  }

  // Forced inline: under COSTDSL_SEPARATE_COMPILATION the extern Kernel<K> made it a call
  // into the library, whose locate() is out of line. `cache` is a Cache (KernelBinding
  // holds the kind's caches untyped).
  COSTDSL_INLINE static interp::Interpolated query(const void* cache, const std::array<double, dims>& x) noexcept {
    const Cache& c = *static_cast<const Cache*>(cache);
    if constexpr (dims == 1) return c.query(x[0]);
    if constexpr (dims == 2) return c.query(x[0], x[1]);
    if constexpr (dims == 3) return c.query(x[0], x[1], x[2]);
  }

  static constexpr std::span<const interp::AxisScale> axis_scales() noexcept {
    if constexpr (requires { K::axis_scales; }) {
      static_assert(K::axis_scales.size() == dims, "a kernel's axis_scales has one entry per axis");
      return K::axis_scales;
    } else {
      return {};
    }
  }
  static constexpr std::span<const std::uint32_t> axis_alignment() noexcept {
    if constexpr (requires { K::axis_alignment; }) {
      static_assert(dims == 1 && K::axis_alignment.size() == 1, "axis_alignment is for one-axis tables");
      return K::axis_alignment;
    } else {
      return {};
    }
  }
  static constexpr std::span<const std::string_view> interpolated_config() noexcept {
    if constexpr (requires { K::interpolated_config; }) {
      static_assert(K::interpolated_config.size() <= 2, "a kernel blends along at most two config fields");
      return K::interpolated_config;
    } else {
      return {};
    }
  }

  // Build time, one non-template call for every kind: the profile source finds and fits
  // each backend's tables; the kernel keeps typed pointers to them.
  void bind_profiles(ProfileSource& source, const std::string& framework);

  // The roofline's time of `c` at a cache point, where the kind can say which call a point
  // stands for (K::input_at): the source estimates a table's missing cells with it.
  std::function<double(std::span<const double>)> model_time(const Config& c) const {
    if constexpr (requires(const std::array<double, dims>& p) { K::input_at(c, p); }) {
      return [rf = roofline_, c](std::span<const double> at) {
        std::array<double, dims> p{};
        std::copy_n(at.begin(), dims, p.begin());
        return K::roofline(*rf, c, K::input_at(c, p)).time_s;
      };
    } else {
      return {};
    }
  }

  // A kind that ranks configs by how alike their kernels run (K::transfer_distance) and
  // maps cache points to calls lets a config no table holds answer from the nearest
  // measured one, every cell times the roofline's time ratio of the two configs there
  // (Coverage::scaled).
  static constexpr bool transfers = requires(const Config& a, const std::array<double, dims>& p) {
    { K::transfer_distance(a, a) } -> std::convertible_to<double>;
    K::input_at(a, p);
  };
  static_assert(!transfers || dims == 2, "a kind's transfer_distance needs 2D tables (Interp2D::scaled rescales them)");
  void bind_scaled(ProfileSource& source, const ProfileSchema& schema, std::size_t backend);

  Config config_;
};

template <KernelDef K>
Kernel<K>::Kernel(const Timing& timing, Config config, std::vector<std::string> backends)
    : KernelBinding(timing, std::move(backends)), config_(std::move(config)) {
  if constexpr (requires { K::validate(config_); }) K::validate(config_);
  check_backends(kind);
  {
    std::vector<std::string> text;
    for_each_field(config_, [&](std::string_view name, const auto& v) {
      text.push_back(std::string(name) + "=" + field_text(v));
    });
    name_request(timing, kind, text);  // same_answers_as
  }
  if (mode_ != TimingMode::roofline && timing.profiles() != nullptr && tables_hold<K>(config_) &&
      !timing.takes_roofline(kind))
    bind_profiles(*timing.profiles(), timing.kernel_framework());
  if constexpr (detail::memoisable<K>) {
    if (!measured_ && mode_ != TimingMode::profile && timing.analytic_memo() > 0)
      make_memo(timing.analytic_memo());
  }
}

template <KernelDef K>
Metrics Kernel<K>::eval_general(const Input& in, bool with_energy) const {
  const double flops = K::flops(config_, in), bytes = K::bytes(config_, in);
  if (flops == 0 && bytes == 0) return Metrics{};  // nothing to do this iteration
  Coverage lost = Coverage::none;
  if (measured_) {
    const auto coords = detail::to_cache<K>(K::point(config_, in));
    double floor = -1;  // ms per call, computed on the first extrapolated answer
    const auto floor_ms = [&] {
      if (floor < 0) {
        const double n = detail::calls<K>(in);
        floor = n > 0 ? K::lower_bound_s(*roofline_, config_, in) * 1e3 / n : 0.0;
      }
      return floor;
    };
    double best = std::numeric_limits<double>::infinity();
    Coverage best_cov = Coverage::none;
    std::uint8_t best_backend = no_backend;
    for (std::size_t b = 0; b < backends_.size(); ++b) {
      const Bound& bound = bound_[b];
      if (bound.num_corners == 0) continue;
      double value = 0;
      Coverage cov = bound.coverage;
      bool answered = true;
      for (std::size_t i = 0; i < bound.num_corners; ++i) {  // one corner unless the config blends
        const interp::Interpolated r = query(bound.corners[i].cache, coords);
        answered = answered && !has(r.coverage, Coverage::no_coverage);
        value += bound.corners[i].weight * r.value;
        cov |= r.coverage;
      }
      // A blend that extrapolates to nothing is no answer, nor a bounded backend off its grid.
      if (!answered || (bound.num_corners > 1 && !(value > 0)) || outside_bounds(bound.bounded, cov)) continue;
      // A line extrapolated past the measured points (or configs) can fall below what the
      // hardware allows (a GEMM's k far under the grid's: 21 ns for 27 MB): never under the
      // call's roofline lower bound. Still flagged EXTRAPOLATED.
      if (has(cov, Coverage::extrapolated)) value = std::max(value, floor_ms());
      if (value < best) {
        best = value;
        best_cov = cov;
        best_backend = static_cast<std::uint8_t>(b);
      }
    }
    if (best_backend != no_backend) {
      const double n = detail::calls<K>(in);
      Metrics m{best * 1e-3 * n, flops, bytes, 0, best_cov, best_backend};
      if (!with_energy) return m;
      const void* e = energy_caches_[best_backend].get();
      const auto er = e ? query(e, coords) : interp::Interpolated{};
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
  if (!with_energy) m.energy_j = 0;  // as a measured leaf's
  return m;
}

template <KernelDef K>
void Kernel<K>::bind_profiles(ProfileSource& source, const std::string& framework) {
  const ProfileSchema schema = profile_schema<K>();
  const std::vector<std::string> key = profile_key(config_);
  const std::vector<BackendTables> tables =
      source.bind({gpu_, schema, key, backends_, detail::to_cache_fn<K>(), detail::off_grid<K>(), axis_scales(),
                   interpolated_config(), model_time(config_), axis_alignment()});
  bool (*bounded)(std::string_view) = nullptr;
  if constexpr (requires { K::bounded_backend(std::string_view{}); })
    bounded = [](std::string_view backend) -> bool { return K::bounded_backend(backend); };
  adopt(kind, tables, framework, bounded);
  if constexpr (transfers) {
    if (!measured_)
      for (std::size_t b = 0; b < backends_.size(); ++b) bind_scaled(source, schema, b);
  }
  pick_sole();
}

template <KernelDef K>
void Kernel<K>::bind_scaled(ProfileSource& source, const ProfileSchema& schema, std::size_t backend) {
  if constexpr (transfers) {
    double best = std::numeric_limits<double>::infinity();
    Config nearest = config_;
    std::vector<std::string> nearest_key;
    for (const std::vector<std::string>& key : source.keys(gpu_, schema, backends_[backend])) {
      Config c = config_;  // untabled fields as ours
      std::size_t i = 0;
      bool parsed = true;
      for_each_field(c, [&](std::string_view name, auto& v) {
        if (untabled_field<Config>(name)) return;
        parsed = parsed && i < key.size() && parse_field_text(key[i], v);
        ++i;
      });
      if (!parsed || i != key.size()) continue;
      const double d = K::transfer_distance(config_, c);
      if (d < best) best = d, nearest = c, nearest_key = key;  // ties: the table's first
    }
    if (nearest_key.empty()) return;
    const std::vector<std::string> one{backends_[backend]};
    const std::vector<BackendTables> tables =
        source.bind({gpu_, schema, nearest_key, one, detail::to_cache_fn<K>(), detail::off_grid<K>(), axis_scales(),
                     interpolated_config(), model_time(nearest), axis_alignment()});
    if (tables.empty() || tables[0].time.size() != 1) return;
    const auto ours = model_time(config_), theirs = model_time(nearest);
    adopt_scaled(backend,
                 std::make_shared<const Cache>(static_cast<const Cache*>(tables[0].time[0].cache.get())->scaled(
                     [&](const std::array<double, dims>& at) { return ours(at) / theirs(at); })),
                 tables[0]);
  } else {
    (void)source, (void)schema, (void)backend;
  }
}

}  // namespace costdsl
