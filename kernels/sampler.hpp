#pragma once
// L1 sampler: logits → one token per request (temperature, softmax, top-k / top-p
// filtering, draw) over the vocab, on each request's last row. dtype = the logits'.
#include <array>
#include <string>
#include <vector>

#include "costdsl/detail/str.hpp"
#include "costdsl/dim.hpp"
#include "costdsl/dtype.hpp"
#include "costdsl/kernel_def.hpp"
#include "costdsl/kernels/detail/compiled_once.hpp"
#include "costdsl/reflect.hpp"

namespace costdsl::kernels {

struct Sampler {
  static constexpr std::string_view kind = "sampler";
  static constexpr Family family = Family::memory;

  struct Config {
    COSTDSL_FIELDS((Dtype, dtype), (Dim, vocab));
  };
  struct Input {
    COSTDSL_FIELDS((std::uint64_t, requests));
  };
  static constexpr std::array<std::string_view, 1> axes{"requests"};

  static std::array<double, 1> point(const Config&, const Input& in) { return {double(in.requests)}; }

  // Per logit: temperature scale, subtract max, exp, sum, normalize = 5 flops (the max
  // and the top-k / top-p thresholds are comparisons, not counted).
  static double flops(const Config& c, const Input& in) { return 5.0 * double(in.requests) * double(c.vocab); }
  // The logits row read once per request + the int64 token written.
  static double bytes(const Config& c, const Input& in) {
    const double r = double(in.requests);
    return bytes_per_element(c.dtype) * r * double(c.vocab) + 8.0 * r;
  }

  static Metrics roofline(const Roofline& rf, const Config& c, const Input& in) {
    return rf.memory_bound(flops(c, in), bytes(c, in), ElementwiseKind::generic);
  }
  // The math runs in fp32 on the CUDA cores whatever the logits dtype.
  static double lower_bound_s(const Roofline& rf, const Config& c, const Input& in) {
    return rf.lower_bound_s(flops(c, in), bytes(c, in), Dtype::fp32);
  }

  // Decode batch sizes, geometric with a half step: 1, 2, 3, 4, 6, 8, 12, ..., 768, 1024.
  static std::vector<Input> sweep(const Config&) {
    std::vector<Input> grid{{1}};
    for (std::uint64_t p = 2; p <= 1024; p *= 2) {
      if (p >= 4) grid.push_back({p / 4 * 3});
      grid.push_back({p});
    }
    return grid;
  }
  static std::vector<std::string> default_backends() { return {"flashinfer"}; }

  static void validate(const Config& c) {
    if (c.vocab == 0 || c.vocab > (1u << 24))
      throw ConfigError(costdsl::detail::str("sampler: vocab ", c.vocab.value, " must be in 1..", 1u << 24));
  }
};

}  // namespace costdsl::kernels

COSTDSL_KERNEL_COMPILED_ONCE(Sampler);
