// The CPU references the GPU kernels are checked against, on hand-computed cases.
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "reference.hpp"

using namespace costdsl_prof::ref;

namespace {
std::vector<std::uint16_t> bf(std::initializer_list<float> v) {
  std::vector<std::uint16_t> out;
  for (float f : v) out.push_back(float_to_bf16(f));
  return out;
}
std::vector<float> fl(const std::vector<std::uint16_t>& v) {
  std::vector<float> out;
  for (auto h : v) out.push_back(bf16_to_float(h));
  return out;
}
}  // namespace

TEST_CASE("bf16 conversion: exact values, round to nearest even, NaN") {
  CHECK(float_to_bf16(1.0f) == 0x3F80);
  CHECK(float_to_bf16(-2.0f) == 0xC000);
  CHECK(bf16_to_float(0x3F80) == 1.0f);
  CHECK(bf16_to_float(0x4049) == doctest::Approx(3.140625f));
  // 1 + 2^-8 is halfway between 1 and 1 + 2^-7: ties to even (1.0).
  CHECK(float_to_bf16(1.0f + 1.0f / 256) == 0x3F80);
  // 1 + 3·2^-8 is halfway between 1 + 2^-7 and 1 + 2^-6: ties to even (1 + 2^-6).
  CHECK(float_to_bf16(1.0f + 3.0f / 256) == 0x3F82);
  CHECK(float_to_bf16(1.0f + 1.5f / 256) == 0x3F81);  // above halfway: up
  CHECK(std::isnan(bf16_to_float(float_to_bf16(std::nanf("")))));
  CHECK(std::isinf(bf16_to_float(float_to_bf16(INFINITY))));
}

TEST_CASE("rms_norm: x = (3, 4): mean square 12.5") {
  const auto x = bf({3, 4, 1, 1}), w = bf({1, 2});
  std::vector<std::uint16_t> y(4);
  rms_norm(x.data(), w.data(), y.data(), 2, 2, 0.0f);
  const auto f = fl(y);
  const float inv = 1.0f / std::sqrt(12.5f);
  CHECK(f[0] == doctest::Approx(3 * inv).epsilon(4e-3));
  CHECK(f[1] == doctest::Approx(8 * inv).epsilon(4e-3));
  CHECK(f[2] == doctest::Approx(1.0f).epsilon(4e-3));  // mean square 1
  CHECK(f[3] == doctest::Approx(2.0f).epsilon(4e-3));
  // eps enters under the root: x = 0 stays 0, x = (1, 1) with eps 3 gives 1/2.
  const auto ones = bf({1, 1});
  rms_norm(ones.data(), bf({1, 1}).data(), y.data(), 1, 2, 3.0f);
  CHECK(fl(y)[0] == 0.5f);
}

TEST_CASE("fused_add_rms_norm: residual becomes x + r, x the normed sum") {
  auto x = bf({1, 2}), r = bf({2, 2});
  const auto w = bf({1, 1});
  fused_add_rms_norm(x.data(), r.data(), w.data(), 1, 2, 0.0f);
  CHECK(fl(r) == std::vector<float>{3, 4});
  const float inv = 1.0f / std::sqrt(12.5f);
  CHECK(fl(x)[0] == doctest::Approx(3 * inv).epsilon(4e-3));
  CHECK(fl(x)[1] == doctest::Approx(4 * inv).epsilon(4e-3));
}

TEST_CASE("silu_and_mul: gate then up halves") {
  // one token, I = 2: gate (0, 2), up (5, 3)
  const auto in = bf({0, 2, 5, 3});
  std::vector<std::uint16_t> out(2);
  silu_and_mul(in.data(), out.data(), 1, 2);
  CHECK(fl(out)[0] == 0.0f);                                                   // silu(0) = 0
  CHECK(fl(out)[1] == doctest::Approx(3 * 2 / (1 + std::exp(-2.0f))).epsilon(4e-3));  // 5.2838
  CHECK(silu(-100.0f) == doctest::Approx(0.0f));
  CHECK(silu(10.0f) == doctest::Approx(10.0f).epsilon(1e-4));
}

TEST_CASE("rope: NeoX pairs (i, i + hd/2) rotate by the position's angle") {
  const std::int64_t hd = 4;
  // cache rows: position 0 → angle 0; position 1 → a quarter turn for pair 0, half for pair 1
  const auto cs = bf({1, 1, 0, 0,      // pos 0: cos(0), cos(0), sin(0), sin(0)
                      0, -1, 1, 0});   // pos 1: cos = (0, −1), sin = (1, 0)
  auto q = bf({1, 2, 3, 4,  1, 2, 3, 4});  // 2 tokens × 1 qo head
  auto k = bf({1, 0, 0, 1,  1, 0, 0, 1});  // 2 tokens × 1 kv head
  const std::vector<std::int64_t> pos{0, 1};
  rope_neox(q.data(), k.data(), pos.data(), cs.data(), 2, 1, 1, hd);
  CHECK(fl(q) == std::vector<float>{1, 2, 3, 4,  -3, -2, 1, -4});
  // pair 0 (x1 = 1, x2 = 3): (1·0 − 3·1, 3·0 + 1·1) = (−3, 1); pair 1 (2, 4) by π: (−2, −4)
  // k: pair 0 (1, 0) by a quarter turn → (0, 1); pair 1 (0, 1) by π → (0, −1)
  CHECK(fl(k) == std::vector<float>{1, 0, 0, 1,  0, 0, 1, -1});
  // the cache: position 0 is (cos 1, sin 0); hd/2 frequencies falling from 1
  const auto c = rope_cos_sin_cache(3, 4, 10000.0f);
  CHECK(fl(c)[0] == 1.0f);
  CHECK(fl(c)[2] == 0.0f);
  CHECK(bf16_to_float(c[4 + 0]) == doctest::Approx(std::cos(1.0f)).epsilon(4e-3));   // pos 1, freq 1
  CHECK(bf16_to_float(c[4 + 3]) == doctest::Approx(std::sin(0.01f)).epsilon(4e-3));  // pos 1, freq 10000^-1/2
}

TEST_CASE("embedding: gathers rows") {
  const auto table = bf({0, 0, 1, 1, 2, 2});
  const std::vector<std::int32_t> ids{2, 0, 2};
  std::vector<std::uint16_t> out(6);
  embedding(ids.data(), table.data(), out.data(), 3, 2);
  CHECK(fl(out) == std::vector<float>{2, 2, 0, 0, 2, 2});
}

TEST_CASE("kv_cache_append: rows land in their slots, padding skipped") {
  const auto k = bf({1, 2, 3, 4, 5, 6}), v = bf({-1, -2, -3, -4, -5, -6});  // 3 tokens × row 2
  const std::vector<std::int64_t> slots{3, -1, 0};
  std::vector<std::uint16_t> kc(8, 0), vc(8, 0);
  kv_cache_append(k.data(), v.data(), slots.data(), kc.data(), vc.data(), 3, 1, 2);
  CHECK(fl(kc) == std::vector<float>{5, 6, 0, 0, 0, 0, 1, 2});
  CHECK(fl(vc) == std::vector<float>{-5, -6, 0, 0, 0, 0, -1, -2});
}

TEST_CASE("attention_prefill: causal over prefix + chunk, GQA") {
  // hd = 1 (scale 1), qo = 2 heads sharing kv = 1. Keys all equal → uniform weights.
  const auto q = bf({1, 5, 1, 5});     // 2 query rows × 2 heads
  const auto k = bf({0, 0, 0});        // prefix 1 + append 2
  const auto v = bf({3, 6, 9});
  std::vector<float> o(4);
  attention_prefill(q.data(), k.data(), v.data(), o.data(), 1, 2, 2, 1, 1);
  CHECK(o[0] == doctest::Approx(4.5));  // row 0 sees keys 0, 1
  CHECK(o[1] == doctest::Approx(4.5));
  CHECK(o[2] == doctest::Approx(6.0));  // row 1 sees keys 0..2
  CHECK(o[3] == doctest::Approx(6.0));
  // Two keys with scores 0 and ln 3 (hd = 1, q = ln 3 ≈ 1.1): weights 1/4, 3/4.
  const auto q2 = bf({1});
  const auto k2 = bf({0, 1});
  const auto v2 = bf({4, 8});
  std::vector<float> o2(1);
  attention_prefill(q2.data(), k2.data(), v2.data(), o2.data(), 1, 1, 1, 1, 1);
  const double w = std::exp(1.0) / (1 + std::exp(1.0));
  CHECK(o2[0] == doctest::Approx(4 * (1 - w) + 8 * w));
}

TEST_CASE("attention_decode: paged gather matches the contiguous answer") {
  // batch 2, page_size 2, hd 1, qo 1 kv 1. Request 0: 3 tokens on pages 2, 0; request 1: 1 token on page 1.
  const std::vector<std::int32_t> table{2, 0, 1, 0}, lens{3, 1};
  const auto q = bf({0, 1});
  // cache slots: page p, offset i → slot 2p + i
  const auto kc = bf({0, 0, 7, 0, 0, 0}), vc = bf({30, 0, 5, 0, 10, 20});
  std::vector<float> o(2);
  attention_decode(q.data(), kc.data(), vc.data(), table.data(), lens.data(), o.data(), 2, 2, 2, 1, 1, 1);
  CHECK(o[0] == doctest::Approx((10 + 20 + 30) / 3.0));  // q = 0: uniform over slots 4, 5, 0
  CHECK(o[1] == doctest::Approx(5.0));                   // one token: slot 2
}

TEST_CASE("first_mismatch and hash_uniform") {
  const std::vector<float> a{1, 2, 3}, b{1, 2.01f, 4};
  CHECK(first_mismatch(a.data(), b.data(), 3, 0.02f, 0) == 2);
  CHECK(first_mismatch(a.data(), b.data(), 2, 0.02f, 0) == -1);
  CHECK(first_mismatch(a.data(), b.data(), 2, 0, 0) == 1);
  for (std::uint64_t i = 0; i < 1000; ++i) {
    const float u = hash_uniform(7, i);
    CHECK(u >= -1.0f);
    CHECK(u < 1.0f);
  }
  CHECK(hash_uniform(1, 5) == hash_uniform(1, 5));
  CHECK(hash_uniform(1, 5) != hash_uniform(2, 5));
}
