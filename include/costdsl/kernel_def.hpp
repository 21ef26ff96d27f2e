#pragma once
// What an L1 kernel file (kernels/<kind>.hpp) provides: one struct with
//
//   kind, family                 names (the profile table is <kind>.csv)
//   Config, Input                reflected structs (COSTDSL_FIELDS): identity and per-call shape
//   axes                         the profile table's input columns, in cache-axis order
//   point(config, input)         one call's values on those axes
//   flops(...), bytes(...)       the exact work formulas
//   roofline(rf, config, input)  the analytic time (its flops/bytes are replaced by ours)
//   lower_bound_s(rf, c, i)      the hardware bound (work at peak, no efficiency)
//   sweep(config)                the grid the profiler measures
//   default_backends()           candidate backends, fastest measured one wins
//
// and optionally: to_cache(point) (a change of axes, e.g. attention's A·B),
// calls(input) (identical calls summed into the slot), off_grid (2D tables),
// axis_scales (per cache axis: linear for additive loads; default: detected),
// axis_alignment (one-axis tables: its multiples and the points one past them lie on
// curves of their own),
// interpolated_config (config fields a missing config blends along, e.g. gemm n, k),
// bounded_backend(name) (a backend that answers only on its measured grid),
// input_at(config, cache_point) (the call a 2D table's cell stands for: its missing
// cells are then estimated from their neighbours' efficiency over the roofline),
// transfer_distance(a, b) (with input_at: a config no table holds answers from the
// nearest measured one, scaled by the roofline's time ratio; infinity: never from b),
// validate(config) (throws a ConfigError naming the field),
// memo_count(config, input) (an input that is a count with a refinement: one count per
// distinct input, which the analytic memo keys it by, or no_memo_count).
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <concepts>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "costdsl/family.hpp"
#include "costdsl/interp/axis_scale.hpp"
#include "costdsl/interp/off_grid.hpp"
#include "costdsl/metrics.hpp"
#include "costdsl/roofline.hpp"

namespace costdsl {

template <class K>
concept KernelDef = requires(const typename K::Config& c, const typename K::Input& in, const Roofline& rf) {
  { K::kind } -> std::convertible_to<std::string_view>;
  { K::family } -> std::convertible_to<Family>;
  K::axes.size();
  { K::point(c, in) } -> std::same_as<std::array<double, K::axes.size()>>;
  { K::flops(c, in) } -> std::same_as<double>;
  { K::bytes(c, in) } -> std::same_as<double>;
  { K::roofline(rf, c, in) } -> std::same_as<Metrics>;
  { K::lower_bound_s(rf, c, in) } -> std::same_as<double>;
  { K::sweep(c) } -> std::same_as<std::vector<typename K::Input>>;
  { K::default_backends() } -> std::same_as<std::vector<std::string>>;
};

namespace detail {
// memo_count's answer for an input the analytic memo does not key (kernel.hpp).
inline constexpr std::uint64_t no_memo_count = ~std::uint64_t{0};

// A count (requests, tokens, bytes) from a cache coordinate, for input_at: rounded and
// held in [0, 2^53] so that the conversion is defined for any grid point.
inline std::uint64_t count_at(double x) noexcept {
  return static_cast<std::uint64_t>(std::llround(std::clamp(x, 0.0, 9007199254740992.0)));
}
// How far apart two attention head configurations run, for transfer_distance: octaves
// of GQA group size weigh 4, of head_dim 2, of KV head count 1.
inline double head_distance(double qo_a, double kv_a, double hd_a, double qo_b, double kv_b, double hd_b) noexcept {
  const auto octaves = [](double x, double y) { return std::abs(std::log2(x / y)); };
  return 4 * octaves(qo_a / kv_a, qo_b / kv_b) + 2 * octaves(hd_a, hd_b) + octaves(kv_a, kv_b);
}
template <class K, std::size_t D>
std::array<double, D> to_cache(const std::array<double, D>& p) {
  if constexpr (requires { K::to_cache(p); }) {
    return K::to_cache(p);
  } else {
    return p;
  }
}
// The change of axes as a plain function pointer, so that binding is one non-template
// call (see ProfileSource); null when the kind has none.
template <class K>
constexpr auto to_cache_fn() -> void (*)(double*) {
  constexpr std::size_t dims = K::axes.size();
  if constexpr (requires(const std::array<double, dims>& p) { K::to_cache(p); }) {
    return +[](double* point) {
      std::array<double, dims> p{};
      std::copy(point, point + dims, p.begin());
      p = K::to_cache(p);
      std::copy(p.begin(), p.end(), point);
    };
  } else {
    return nullptr;
  }
}
template <class K>
double calls(const typename K::Input& in) {
  if constexpr (requires { K::calls(in); }) {
    return K::calls(in);
  } else {
    return 1.0;
  }
}
template <class K>
constexpr interp::OffGrid off_grid() {
  if constexpr (requires { K::off_grid; }) {
    return K::off_grid;
  } else {
    return interp::OffGrid::clamp;
  }
}
}  // namespace detail

}  // namespace costdsl
