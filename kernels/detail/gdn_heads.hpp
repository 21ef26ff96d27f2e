#pragma once
// One rank's Gated DeltaNet head layout, shared by the four GDN kinds (gdn_conv1d_prefill,
// gdn_conv1d_decode, gdn_prefill, gdn_decode): num_k_heads query/key heads of head_k_dim,
// num_v_heads value heads of head_v_dim, each k head shared by num_v_heads / num_k_heads v
// heads (GVA). Each v head owns a recurrent state of head_k_dim × head_v_dim.
#include <array>
#include <cmath>
#include <cstdint>
#include <string_view>
#include <vector>

#include "costdsl/detail/str.hpp"
#include "costdsl/dtype.hpp"
#include "costdsl/error.hpp"
#include "costdsl/fields.hpp"
#include "costdsl/kernel_def.hpp"

namespace costdsl::kernels::detail {

struct GdnHeads {
  std::uint64_t num_k_heads = 0, head_k_dim = 0, num_v_heads = 0, head_v_dim = 0;

  // The layout a GDN kind's Config declares (its num_k_heads, head_k_dim, num_v_heads and
  // head_v_dim dims).
  template <class Config>
  static GdnHeads of(const Config& c) noexcept {
    return {c.num_k_heads.value, c.head_k_dim.value, c.num_v_heads.value, c.head_v_dim.value};
  }

  // FLA's kernels hold a head_k_dim × (block of head_v_dim) state tile per program and
  // assert head dims of at most 256; head counts beyond 1024 per rank are no real model.
  static constexpr std::uint64_t max_heads = 1024, max_head_dim = 256;

  double k_dim() const noexcept { return double(num_k_heads) * double(head_k_dim); }
  double v_dim() const noexcept { return double(num_v_heads) * double(head_v_dim); }
  // The channels of the packed q | k | v projection output the short convolution runs over.
  double conv_dim() const noexcept { return 2 * k_dim() + v_dim(); }
  // Elements of one sequence's recurrent state: a head_k_dim × head_v_dim matrix per v head.
  double state_elements() const noexcept { return v_dim() * double(head_k_dim); }

  // Throws a ConfigError naming the kind, the field, its value and the rule.
  void validate(std::string_view kind, Dtype dtype) const {
    if (dtype != Dtype::bf16 && dtype != Dtype::fp16 && dtype != Dtype::fp32)
      throw ConfigError(costdsl::detail::str(
          kind, ": dtype ", dtype, " is not one the gated delta rule runs in (bf16, fp16, fp32 activations)"));
    auto check = [&](std::string_view field, std::uint64_t v, std::uint64_t max) {
      if (v == 0 || v > max) throw ConfigError(costdsl::detail::str(kind, ": ", field, " ", v, " must be in 1..", max));
    };
    check("num_k_heads", num_k_heads, max_heads);
    check("head_k_dim", head_k_dim, max_head_dim);
    check("num_v_heads", num_v_heads, max_heads);
    check("head_v_dim", head_v_dim, max_head_dim);
    if (num_v_heads % num_k_heads != 0)
      throw ConfigError(costdsl::detail::str(kind, ": num_v_heads ", num_v_heads,
                                             " must be a multiple of num_k_heads ", num_k_heads,
                                             " (each k head is shared by num_v_heads / num_k_heads v heads)"));
  }

  // How far apart two layouts run, for a kind's transfer_distance: octaves of the v/k
  // group weigh 4 (how each k head's loads are shared), of the head dims 2 each (tile
  // shapes), of the v head count 1 (more of the same programs).
  static double distance(const GdnHeads& a, const GdnHeads& b) noexcept {
    const auto octaves = [](double x, double y) { return std::abs(std::log2(x / y)); };
    return 4 * octaves(double(a.num_v_heads) / double(a.num_k_heads), double(b.num_v_heads) / double(b.num_k_heads)) +
           2 * octaves(double(a.head_k_dim), double(b.head_k_dim)) +
           2 * octaves(double(a.head_v_dim), double(b.head_v_dim)) +
           octaves(double(a.num_v_heads), double(b.num_v_heads));
  }
};

// The short convolution's width (the conv kinds' d_conv): causal-conv1d's kernels take 2..4;
// 8 leaves room and stays a short conv.
inline void validate_conv_width(std::string_view kind, std::uint64_t d_conv) {
  if (d_conv < 2 || d_conv > 8)
    throw ConfigError(costdsl::detail::str(kind, ": d_conv ", d_conv, " must be in 2..8"));
}

// The decode kinds' grid: 1..1024 requests (powers of two), aiconfigurator's decode grid.
template <class Input>
std::vector<Input> gdn_decode_sweep() {
  std::vector<Input> grid;
  for (std::uint64_t b = 1; b <= 1024; b *= 2) grid.push_back({b});
  return grid;
}

// The input of the GDN kinds that run whole sequences (gdn_conv1d_prefill, gdn_prefill):
// batch sequences of seq_len tokens each. Their work is batch · seq_len, so off the grid
// both axes scale it and inside it both interpolate linearly (see Kernel::fit).
struct SequenceAxes {
  struct Input {
    COSTDSL_FIELDS((std::uint64_t, batch), (std::uint64_t, seq_len));
  };
  static constexpr std::array<std::string_view, 2> axes{"batch", "seq_len"};
  template <class Config>
  static std::array<double, 2> point(const Config&, const Input& in) {
    return {double(in.batch), double(in.seq_len)};
  }
  template <class Config>
  static Input input_at(const Config&, const std::array<double, 2>& at) {
    return {costdsl::detail::count_at(at[0]), costdsl::detail::count_at(at[1])};
  }
  static constexpr interp::OffGrid off_grid = interp::OffGrid::product;
  static constexpr std::array<interp::AxisScale, 2> axis_scales{interp::AxisScale::linear, interp::AxisScale::linear};
  static bool idle(const Input& in) { return in.batch == 0 || in.seq_len == 0; }
  static double tokens(const Input& in) { return double(in.batch) * double(in.seq_len); }
};

}  // namespace costdsl::kernels::detail
