#pragma once
// L1 kv_cache_append: scatters the new tokens' K and V (per-rank KV heads) into their
// paged-cache slots (reshape_and_cache), converting to the cache dtype.
#include <array>
#include <string>
#include <vector>

#include "costdsl/detail/str.hpp"
#include "costdsl/dim.hpp"
#include "costdsl/dtype.hpp"
#include "costdsl/kernel_def.hpp"
#include "costdsl/kernels/detail/compiled_once.hpp"
#include "costdsl/reflect.hpp"
#include "costdsl/token_axis.hpp"

namespace costdsl::kernels {

struct KvCacheAppend {
  static constexpr std::string_view kind = "kv_cache_append";
  static constexpr Family family = Family::memory;

  struct Config {
    COSTDSL_FIELDS((Dtype, kv_dtype), (Dim, num_kv_heads), (Dim, head_dim));
  };
  struct Input {
    COSTDSL_FIELDS((std::uint64_t, tokens));
  };
  static constexpr std::array<std::string_view, 1> axes{"tokens"};

  static std::array<double, 1> point(const Config&, const Input& in) { return {double(in.tokens)}; }

  // K and V come out of the QKV projection in 16-bit; a narrower cache quantizes them.
  static Dtype src_dtype(const Config& c) { return bytes_per_element(c.kv_dtype) < 2 ? Dtype::bf16 : c.kv_dtype; }
  // K and V elements per token.
  static double elements(const Config& c) { return 2.0 * double(c.num_kv_heads) * double(c.head_dim); }
  // A same-dtype copy does no math; quantizing multiplies each element by the inverse scale.
  static double flops(const Config& c, const Input& in) {
    return src_dtype(c) == c.kv_dtype ? 0.0 : double(in.tokens) * elements(c);
  }
  // K and V read (source dtype) and written (cache dtype) + the int64 slot index per token.
  static double bytes(const Config& c, const Input& in) {
    const double t = double(in.tokens);
    return t * elements(c) * (bytes_per_element(src_dtype(c)) + bytes_per_element(c.kv_dtype)) + 8.0 * t;
  }

  static Metrics roofline(const Roofline& rf, const Config& c, const Input& in) {
    return rf.memory_bound(flops(c, in), bytes(c, in), ElementwiseKind::kv_append);
  }
  // The conversion runs in fp32 on the CUDA cores.
  static double lower_bound_s(const Roofline& rf, const Config& c, const Input& in) {
    return rf.lower_bound_s(flops(c, in), bytes(c, in), Dtype::fp32);
  }

  static std::vector<Input> sweep(const Config&) {
    std::vector<Input> grid;
    for (std::uint32_t t : token_axis) grid.push_back({t});
    return grid;
  }
  static std::vector<std::string> default_backends() { return {"costdsl_cuda", "flashinfer"}; }

  static void validate(const Config& c) {
    auto check = [](std::string_view field, std::uint64_t v, std::uint64_t max) {
      if (v == 0 || v > max) throw ConfigError(costdsl::detail::str("kv_cache_append: ", field, " ", v, " must be in 1..", max));
    };
    check("num_kv_heads", c.num_kv_heads, 1024);
    check("head_dim", c.head_dim, 1024);
  }
};

}  // namespace costdsl::kernels

COSTDSL_KERNEL_COMPILED_ONCE(KvCacheAppend);
