// CPU reference implementations of the kernels costdsl-profile writes itself. The
// CUDA side checks each kernel against these on small shapes before timing it, and
// tests/profiler unit-tests them on hand-computed cases.
//
// Plain C++17 with no dependencies: this header is compiled by nvcc (host code of the
// .cu files) as well as g++, so it must not include fmt, Boost or costdsl headers.
//
// Storage is bf16 as raw uint16_t bits; all math is fp32, and the rounding points
// match the CUDA kernels (each stored value is rounded to bf16 once).
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

namespace costdsl_prof::ref {

inline float bf16_to_float(std::uint16_t h) {
  const std::uint32_t u = std::uint32_t(h) << 16;
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

// Round to nearest, ties to even (what __float2bfloat16 does); NaN stays a quiet NaN.
inline std::uint16_t float_to_bf16(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  if ((u & 0x7F800000u) == 0x7F800000u && (u & 0x007FFFFFu) != 0) return std::uint16_t((u >> 16) | 0x0040u);
  const std::uint32_t lsb = (u >> 16) & 1u;
  u += 0x7FFFu + lsb;
  return std::uint16_t(u >> 16);
}

inline float round_bf16(float f) { return bf16_to_float(float_to_bf16(f)); }

// y[t, :] = x[t, :] · rsqrt(mean(x[t, :]²) + eps) · w
inline void rms_norm(const std::uint16_t* x, const std::uint16_t* w, std::uint16_t* y, std::int64_t tokens,
                     std::int64_t hidden, float eps) {
  for (std::int64_t t = 0; t < tokens; ++t) {
    double ss = 0;
    for (std::int64_t i = 0; i < hidden; ++i) {
      const double v = bf16_to_float(x[t * hidden + i]);
      ss += v * v;
    }
    const float inv = 1.0f / std::sqrt(float(ss / double(hidden)) + eps);
    for (std::int64_t i = 0; i < hidden; ++i)
      y[t * hidden + i] = float_to_bf16(bf16_to_float(x[t * hidden + i]) * inv * bf16_to_float(w[i]));
  }
}

// r ← bf16(x + r); x ← bf16(r · rsqrt(mean(r²) + eps) · w), both in place.
inline void fused_add_rms_norm(std::uint16_t* x, std::uint16_t* r, const std::uint16_t* w, std::int64_t tokens,
                               std::int64_t hidden, float eps) {
  for (std::int64_t t = 0; t < tokens; ++t) {
    std::uint16_t* xr = x + t * hidden;
    std::uint16_t* rr = r + t * hidden;
    for (std::int64_t i = 0; i < hidden; ++i) rr[i] = float_to_bf16(bf16_to_float(xr[i]) + bf16_to_float(rr[i]));
  }
  rms_norm(r, w, x, tokens, hidden, eps);
}

inline float silu(float g) { return g / (1.0f + std::exp(-g)); }

// in[t] = [gate (I) | up (I)]; out[t, i] = silu(gate[i]) · up[i]
inline void silu_and_mul(const std::uint16_t* in, std::uint16_t* out, std::int64_t tokens, std::int64_t inter) {
  for (std::int64_t t = 0; t < tokens; ++t)
    for (std::int64_t i = 0; i < inter; ++i) {
      const float g = bf16_to_float(in[t * 2 * inter + i]);
      const float u = bf16_to_float(in[t * 2 * inter + inter + i]);
      out[t * inter + i] = float_to_bf16(silu(g) * u);
    }
}

// NeoX-style rotary embedding, in place. q: [tokens][qo][hd], k: [tokens][kv][hd];
// cos_sin: [max_pos][hd] = cos (hd/2) then sin (hd/2), bf16. Pair (x[i], x[i + hd/2])
// rotates by the position's angle i: (x1·c − x2·s, x2·c + x1·s).
inline void rope_neox(std::uint16_t* q, std::uint16_t* k, const std::int64_t* pos, const std::uint16_t* cos_sin,
                      std::int64_t tokens, std::int64_t qo, std::int64_t kv, std::int64_t hd) {
  const std::int64_t half = hd / 2;
  auto rotate = [&](std::uint16_t* x, const std::uint16_t* cs) {
    for (std::int64_t i = 0; i < half; ++i) {
      const float c = bf16_to_float(cs[i]), s = bf16_to_float(cs[half + i]);
      const float x1 = bf16_to_float(x[i]), x2 = bf16_to_float(x[half + i]);
      x[i] = float_to_bf16(x1 * c - x2 * s);
      x[half + i] = float_to_bf16(x2 * c + x1 * s);
    }
  };
  for (std::int64_t t = 0; t < tokens; ++t) {
    const std::uint16_t* cs = cos_sin + pos[t] * hd;
    for (std::int64_t h = 0; h < qo; ++h) rotate(q + (t * qo + h) * hd, cs);
    for (std::int64_t h = 0; h < kv; ++h) rotate(k + (t * kv + h) * hd, cs);
  }
}

// The cos/sin cache rope reads: angle(p, i) = p · base^(−2i/hd).
inline std::vector<std::uint16_t> rope_cos_sin_cache(std::int64_t max_pos, std::int64_t hd, float base = 500000.0f) {
  std::vector<std::uint16_t> cs(static_cast<std::size_t>(max_pos * hd));
  const std::int64_t half = hd / 2;
  for (std::int64_t p = 0; p < max_pos; ++p)
    for (std::int64_t i = 0; i < half; ++i) {
      const double inv_freq = std::pow(double(base), -2.0 * double(i) / double(hd));
      const double a = double(p) * inv_freq;
      cs[static_cast<std::size_t>(p * hd + i)] = float_to_bf16(float(std::cos(a)));
      cs[static_cast<std::size_t>(p * hd + half + i)] = float_to_bf16(float(std::sin(a)));
    }
  return cs;
}

// out[t, :] = table[ids[t], :]
inline void embedding(const std::int32_t* ids, const std::uint16_t* table, std::uint16_t* out, std::int64_t tokens,
                      std::int64_t hidden) {
  for (std::int64_t t = 0; t < tokens; ++t)
    std::memcpy(out + t * hidden, table + std::int64_t(ids[t]) * hidden, static_cast<std::size_t>(hidden) * sizeof(std::uint16_t));
}

// k, v: [tokens][kv][hd]; caches: [slots][kv][hd] (pages of page_size slots, flattened);
// slot_mapping[t] = the token's slot (negative: padding, skipped).
inline void kv_cache_append(const std::uint16_t* k, const std::uint16_t* v, const std::int64_t* slot_mapping,
                            std::uint16_t* k_cache, std::uint16_t* v_cache, std::int64_t tokens, std::int64_t kv,
                            std::int64_t hd) {
  const std::int64_t row = kv * hd;
  for (std::int64_t t = 0; t < tokens; ++t) {
    const std::int64_t s = slot_mapping[t];
    if (s < 0) continue;
    std::memcpy(k_cache + s * row, k + t * row, static_cast<std::size_t>(row) * sizeof(std::uint16_t));
    std::memcpy(v_cache + s * row, v + t * row, static_cast<std::size_t>(row) * sizeof(std::uint16_t));
  }
}

// Causal GQA attention of one chunk: q [append][qo][hd], k/v [prefix + append][kv][hd],
// o [append][qo][hd]. Query row i sits at position prefix + i and sees keys 0..prefix+i.
// Scores use scale = 1/sqrt(hd); the output is the softmax-weighted sum of v (fp32).
inline void attention_prefill(const std::uint16_t* q, const std::uint16_t* k, const std::uint16_t* v, float* o,
                              std::int64_t prefix, std::int64_t append, std::int64_t qo, std::int64_t kv,
                              std::int64_t hd) {
  const std::int64_t group = qo / kv;
  const float scale = 1.0f / std::sqrt(float(hd));
  std::vector<double> p(static_cast<std::size_t>(prefix + append));
  for (std::int64_t i = 0; i < append; ++i)
    for (std::int64_t h = 0; h < qo; ++h) {
      const std::int64_t kh = h / group, last = prefix + i;
      const std::uint16_t* qr = q + (i * qo + h) * hd;
      double mx = -std::numeric_limits<double>::infinity();
      for (std::int64_t j = 0; j <= last; ++j) {
        const std::uint16_t* kr = k + (j * kv + kh) * hd;
        double s = 0;
        for (std::int64_t d = 0; d < hd; ++d) s += double(bf16_to_float(qr[d])) * double(bf16_to_float(kr[d]));
        p[static_cast<std::size_t>(j)] = s * scale;
        mx = std::max(mx, p[static_cast<std::size_t>(j)]);
      }
      double sum = 0;
      for (std::int64_t j = 0; j <= last; ++j) sum += (p[static_cast<std::size_t>(j)] = std::exp(p[static_cast<std::size_t>(j)] - mx));
      float* orow = o + (i * qo + h) * hd;
      for (std::int64_t d = 0; d < hd; ++d) {
        double acc = 0;
        for (std::int64_t j = 0; j <= last; ++j) acc += p[static_cast<std::size_t>(j)] * double(bf16_to_float(v[(j * kv + kh) * hd + d]));
        orow[d] = float(acc / sum);
      }
    }
}

// Paged decode attention: q [batch][qo][hd]; caches [pages][page_size][kv][hd];
// block_table [batch][max_pages]; kv_len[b] tokens of request b; o [batch][qo][hd].
inline void attention_decode(const std::uint16_t* q, const std::uint16_t* k_cache, const std::uint16_t* v_cache,
                             const std::int32_t* block_table, const std::int32_t* kv_len, float* o,
                             std::int64_t batch, std::int64_t max_pages, std::int64_t page_size, std::int64_t qo,
                             std::int64_t kv, std::int64_t hd) {
  const std::int64_t group = qo / kv;
  const float scale = 1.0f / std::sqrt(float(hd));
  for (std::int64_t b = 0; b < batch; ++b) {
    const std::int64_t len = kv_len[b];
    std::vector<double> p(static_cast<std::size_t>(len));
    for (std::int64_t h = 0; h < qo; ++h) {
      const std::int64_t kh = h / group;
      const std::uint16_t* qr = q + (b * qo + h) * hd;
      auto row = [&](const std::uint16_t* cache, std::int64_t j) {
        const std::int64_t page = block_table[b * max_pages + j / page_size];
        return cache + ((page * page_size + j % page_size) * kv + kh) * hd;
      };
      double mx = -std::numeric_limits<double>::infinity();
      for (std::int64_t j = 0; j < len; ++j) {
        const std::uint16_t* kr = row(k_cache, j);
        double s = 0;
        for (std::int64_t d = 0; d < hd; ++d) s += double(bf16_to_float(qr[d])) * double(bf16_to_float(kr[d]));
        p[static_cast<std::size_t>(j)] = s * scale;
        mx = std::max(mx, p[static_cast<std::size_t>(j)]);
      }
      double sum = 0;
      for (std::int64_t j = 0; j < len; ++j) sum += (p[static_cast<std::size_t>(j)] = std::exp(p[static_cast<std::size_t>(j)] - mx));
      for (std::int64_t d = 0; d < hd; ++d) {
        double acc = 0;
        for (std::int64_t j = 0; j < len; ++j) acc += p[static_cast<std::size_t>(j)] * double(bf16_to_float(row(v_cache, j)[d]));
        o[(b * qo + h) * hd + d] = float(acc / sum);
      }
    }
  }
}

// |got − want| ≤ atol + rtol·|want| for every element; returns the first bad index or −1.
inline std::int64_t first_mismatch(const float* got, const float* want, std::int64_t n, float atol, float rtol) {
  for (std::int64_t i = 0; i < n; ++i) {
    const float g = got[i], w = want[i];
    if (!(std::fabs(g - w) <= atol + rtol * std::fabs(w))) return i;
  }
  return -1;
}

// Deterministic pseudo-random values in [-1, 1) (the same generator as the GPU fill).
inline float hash_uniform(std::uint64_t seed, std::uint64_t i) {
  std::uint64_t z = seed * 0x9E3779B97F4A7C15ull + i + 0x632BE59BD9B4E019ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return float(z >> 40) * (2.0f / 16777216.0f) - 1.0f;
}

}  // namespace costdsl_prof::ref
