// L1 Gated DeltaNet kernels: gdn_conv1d_prefill, gdn_conv1d_decode, gdn_prefill, gdn_decode.
// Work formulas against hand arithmetic on one shape, the zero-work leaf, the roofline
// (ANALYTIC, at or above the hardware bound, monotone in batch and tokens, the serial
// recurrence of few long sequences), validation messages, sweeps and the transfer rule.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "costdsl/concepts.hpp"
#include "costdsl/costdsl.hpp"
#include "costdsl/kernel.hpp"
#include "costdsl/kernels/gdn_conv1d_decode.hpp"
#include "costdsl/kernels/gdn_conv1d_prefill.hpp"
#include "costdsl/kernels/gdn_decode.hpp"
#include "costdsl/kernels/gdn_prefill.hpp"
#include "costdsl/timing.hpp"

#include "leaf_checks.hpp"

using namespace costdsl;
using namespace costdsl::kernels;

static_assert(KernelDef<GdnConv1dPrefill>);
static_assert(SlotKernel<Kernel<GdnConv1dPrefill>>);
static_assert(KernelDef<GdnConv1dDecode>);
static_assert(SlotKernel<Kernel<GdnConv1dDecode>>);
static_assert(KernelDef<GdnPrefill>);
static_assert(SlotKernel<Kernel<GdnPrefill>>);
static_assert(KernelDef<GdnDecode>);
static_assert(SlotKernel<Kernel<GdnDecode>>);

namespace {

const Timing& h200() {
  static const Timing t = load_timing("h200", TimingMode::roofline);
  return t;
}

// The shape of every hand-computed case: 2 k heads and 4 v heads of 128 (Qwen3.5-9B's
// 16 k / 32 v heads at tp 8), bf16, a width-4 conv. conv_dim = 2·2·128 + 4·128 = 1024;
// one sequence's state is 4 · 128 · 128 = 65,536 fp32 values.
const GdnConv1dPrefill::Config conv_prefill{Dtype::bf16, 2, 128, 4, 128, 4};
const GdnConv1dDecode::Config conv_decode{Dtype::bf16, 2, 128, 4, 128, 4};
const GdnPrefill::Config prefill{Dtype::bf16, 2, 128, 4, 128};
const GdnDecode::Config decode{Dtype::bf16, 2, 128, 4, 128};

using kernel_test::check_analytic;
using kernel_test::check_zero;

// The roofline never gets faster with more requests or more tokens per sequence.
template <class K>
void check_monotone(const typename K::Config& c, std::uint64_t max_batch, std::uint64_t max_seq_len) {
  const Roofline& rf = *h200().roofline();
  for (std::uint64_t l = 1; l <= max_seq_len; l *= 2) {
    double prev = 0;
    for (std::uint64_t b = 1; b <= max_batch; b = b * 3 / 2 + 1) {
      typename K::Input in{};
      if constexpr (K::axes.size() == 2) in = {b, l};
      else in = {b};
      const double t = K::roofline(rf, c, in).time_s;
      CHECK_MESSAGE(t >= prev, K::kind, " batch ", b, " seq_len ", l);
      prev = t;
    }
  }
  if constexpr (K::axes.size() == 2) {
    for (std::uint64_t b = 1; b <= max_batch; b *= 4) {
      double prev = 0;
      for (std::uint64_t l = 1; l <= max_seq_len; l = l * 3 / 2 + 1) {
        const double t = K::roofline(rf, c, {b, l}).time_s;
        CHECK_MESSAGE(t >= prev, K::kind, " batch ", b, " seq_len ", l);
        prev = t;
      }
    }
  }
}

// The 2D sweep: batch 1..64 × seq_len 1..32768 in powers of two, at most 131072 tokens:
// 16 + 16 + 16 + 15 + 14 + 13 + 12 = 102 points, strictly increasing, each a real call.
template <class K>
void check_sweep_2d(const typename K::Config& c) {
  const auto grid = K::sweep(c);
  CHECK(grid.size() == 102);
  for (std::size_t i = 0; i < grid.size(); ++i) {
    CHECK(grid[i].batch * grid[i].seq_len <= 131072);
    CHECK(K::bytes(c, grid[i]) > 0);
    CHECK(K::point(c, grid[i]) == std::array<double, 2>{double(grid[i].batch), double(grid[i].seq_len)});
    if (i > 0)
      CHECK((grid[i - 1].batch < grid[i].batch ||
             (grid[i - 1].batch == grid[i].batch && grid[i - 1].seq_len < grid[i].seq_len)));
  }
  CHECK(grid.front().batch == 1);
  CHECK(grid.front().seq_len == 1);
  CHECK(grid.back().batch == 64);
  CHECK(grid.back().seq_len == 2048);
}

template <class K>
void check_sweep_1d(const typename K::Config& c) {
  const auto grid = K::sweep(c);
  REQUIRE(grid.size() == 11);
  for (std::size_t i = 0; i < grid.size(); ++i) CHECK(grid[i].batch == std::uint64_t{1} << i);
}

}  // namespace

TEST_CASE("gdn_conv1d_prefill: the causal conv over a batch of fresh sequences") {
  const GdnConv1dPrefill::Input in{2, 100};  // 200 tokens
  // 200 tokens · 1024 channels · (2·4 taps + 3 for SiLU) = 2,252,800.
  CHECK(GdnConv1dPrefill::flops(conv_prefill, in) == 2252800.0);
  // 2 B · (2 · 200 · 1024 in and out + 1024 · 4 taps + 2 sequences · 1024 · 3 state) = 839,680
  // + two int32 per sequence.
  CHECK(GdnConv1dPrefill::bytes(conv_prefill, in) == 839680.0 + 16.0);
  CHECK(GdnConv1dPrefill::point(conv_prefill, in) == std::array<double, 2>{2, 100});
  CHECK(GdnConv1dPrefill::input_at(conv_prefill, {2, 100}).seq_len == 100);
  CHECK(GdnConv1dPrefill::off_grid == interp::OffGrid::product);

  check_analytic<GdnConv1dPrefill>(conv_prefill, in);
  // A streaming kernel: the activation curve's memory-bound time for its bytes.
  const Roofline& rf = *h200().roofline();
  CHECK(GdnConv1dPrefill::roofline(rf, conv_prefill, in).time_s ==
        rf.memory_bound(2252800.0, 839696.0, ElementwiseKind::activation).time_s);
  check_zero<GdnConv1dPrefill>(conv_prefill, {0, 100});
  check_zero<GdnConv1dPrefill>(conv_prefill, {2, 0});
  check_monotone<GdnConv1dPrefill>(conv_prefill, 64, 32768);
  check_sweep_2d<GdnConv1dPrefill>(conv_prefill);

  // Layouts of one conv_dim run alike; another dtype or width never stands in.
  const GdnConv1dPrefill::Config wider{Dtype::bf16, 4, 128, 8, 128, 4};  // conv_dim 2048
  CHECK(GdnConv1dPrefill::transfer_distance(conv_prefill, conv_prefill) == 0);
  CHECK(GdnConv1dPrefill::transfer_distance(conv_prefill, wider) == 1);
  CHECK(GdnConv1dPrefill::transfer_distance(conv_prefill, {Dtype::fp16, 2, 128, 4, 128, 4}) ==
        std::numeric_limits<double>::infinity());
  CHECK(GdnConv1dPrefill::transfer_distance(conv_prefill, {Dtype::bf16, 2, 128, 4, 128, 3}) ==
        std::numeric_limits<double>::infinity());

  CHECK_THROWS_WITH_AS(Kernel<GdnConv1dPrefill>(h200(), {Dtype::bf16, 2, 128, 4, 128, 1}),
                       "gdn_conv1d_prefill: d_conv 1 must be in 2..8", ConfigError);
  CHECK_THROWS_WITH_AS(Kernel<GdnConv1dPrefill>(h200(), {Dtype::bf16, 2, 128, 5, 128, 4}),
                       "gdn_conv1d_prefill: num_v_heads 5 must be a multiple of num_k_heads 2 (each k head is shared "
                       "by num_v_heads / num_k_heads v heads)",
                       ConfigError);
}

TEST_CASE("gdn_conv1d_decode: one token per request through its conv state") {
  const GdnConv1dDecode::Input in{8};
  // 8 requests · 1024 channels · (2·4 + 3) = 90,112.
  CHECK(GdnConv1dDecode::flops(conv_decode, in) == 90112.0);
  // 2 B · (8 · 1024 · (1 in + 1 out + 2 · 3 state) + 1024 · 4 taps) = 139,264 + an int32 slot per request.
  CHECK(GdnConv1dDecode::bytes(conv_decode, in) == 139264.0 + 32.0);
  const Roofline& rf = *h200().roofline();
  CHECK(GdnConv1dDecode::roofline(rf, conv_decode, in).time_s ==
        rf.memory_bound(90112.0, 139296.0, ElementwiseKind::activation).time_s);

  check_analytic<GdnConv1dDecode>(conv_decode, in);
  check_zero<GdnConv1dDecode>(conv_decode, {0});
  check_monotone<GdnConv1dDecode>(conv_decode, 4096, 1);
  check_sweep_1d<GdnConv1dDecode>(conv_decode);

  CHECK_THROWS_WITH_AS(Kernel<GdnConv1dDecode>(h200(), {Dtype::bf16, 2, 128, 4, 128, 9}),
                       "gdn_conv1d_decode: d_conv 9 must be in 2..8", ConfigError);
  CHECK_THROWS_WITH_AS(Kernel<GdnConv1dDecode>(h200(), {Dtype::bf16, 2, 0, 4, 128, 4}),
                       "gdn_conv1d_decode: head_k_dim 0 must be in 1..256", ConfigError);
}

TEST_CASE("gdn_decode: the fused recurrent step reads and writes every request's fp32 state") {
  const GdnDecode::Input in{8};
  // Per request and v head 7 · 128 · 128 + 2 · 128 + 10 = 114,954; per k head 6 · 128 = 768:
  // 4 · 114,954 + 2 · 768 = 461,352 per request, × 8.
  CHECK(GdnDecode::flops(decode, in) == 3690816.0);
  // Per request: the state 2 · 4 B · 65,536 = 524,288; 2 B · (1024 q|k|v + 512 o + 8 a, b)
  // = 3,088; the slot 4: 527,380 × 8 = 4,219,040; per launch A_log and dt_bias 4 · (4 + 2) = 24.
  CHECK(GdnDecode::bytes(decode, in) == 4219040.0 + 24.0);

  const Metrics m = check_analytic<GdnDecode>(decode, in);
  // Bandwidth-bound on the state: above the state bytes at full HBM bandwidth, and exactly
  // the memory-bound form of all its bytes.
  const Roofline& rf = *h200().roofline();
  CHECK(m.time_s > 8 * 524288.0 / rf.gpu().hbm_bandwidth);
  CHECK(m.time_s == rf.memory_bound(3690816.0, 4219064.0, ElementwiseKind::generic).time_s);
  // The state is fp32 whatever the activations: an fp32 model moves only its activations' extra bytes.
  CHECK(GdnDecode::bytes({Dtype::fp32, 2, 128, 4, 128}, in) == 8 * (524288.0 + 4 * 1544 + 4) + 4 * (4 + 4));

  check_zero<GdnDecode>(decode, {0});
  check_monotone<GdnDecode>(decode, 4096, 1);
  check_sweep_1d<GdnDecode>(decode);

  CHECK_THROWS_WITH_AS(Kernel<GdnDecode>(h200(), {Dtype::bf16, 0, 128, 4, 128}),
                       "gdn_decode: num_k_heads 0 must be in 1..1024", ConfigError);
  CHECK_THROWS_WITH_AS(Kernel<GdnDecode>(h200(), {Dtype::bf16, 2, 128, 4, 512}),
                       "gdn_decode: head_v_dim 512 must be in 1..256", ConfigError);
  CHECK_THROWS_WITH_AS(Kernel<GdnDecode>(h200(), {Dtype::fp8, 2, 128, 4, 128}),
                       "gdn_decode: dtype fp8 is not one the gated delta rule runs in (bf16, fp16, fp32 activations)",
                       ConfigError);
  CHECK_THROWS_WITH_AS(Kernel<GdnDecode>(h200(), {Dtype::bf16, 2, 128, 2048, 128}),
                       "gdn_decode: num_v_heads 2048 must be in 1..1024", ConfigError);
}

TEST_CASE("gdn_prefill: the chunked gated delta rule, intra- and inter-chunk work") {
  const GdnPrefill::Input in{2, 100};  // two sequences of 100 tokens: a chunk of 64 and one of 36 each
  // One v head, a chunk of n tokens, dk = dv = 128:
  //   n = 64: products 64·63·128 = 516,096 (A) + 64·63·62/3 = 83,328 ((I + A)⁻¹)
  //           + 2·64·65·256 = 2,129,920 (W, U; QKᵀ, P·V_new) + 6·64·16,384 = 6,291,456 (W·S,
  //           Kᵀ·V_new, Q·S) = 9,020,800; elementwise 64 + 8,064 + 6,240 + 16,512 + 8,192
  //           + 8,320 + 16,448 + 16,385 = 80,225; 9,101,025 in all
  //   n = 36: products 161,280 + 14,280 + 681,984 + 3,538,944 = 4,396,488; elementwise
  //           36 + 2,520 + 1,998 + 9,288 + 4,608 + 4,680 + 9,252 + 16,385 = 48,767; 4,445,255
  // Per sequence 4 v heads · 13,546,280 + 2 k heads · 6 · 128 · 100 (norms) = 54,338,720; × 2.
  CHECK(GdnPrefill::chunk_flops(64, 128, 128) == 9101025.0);
  CHECK(GdnPrefill::chunk_flops(36, 128, 128) == 4445255.0);
  CHECK(GdnPrefill::chunk_flops(0, 128, 128) == 0);
  CHECK(GdnPrefill::flops(prefill, in) == 108677440.0);
  // The pipeline's bytes (q or k over the k heads 512 B a token; W, v, U, V_new, o rows
  // 1024 B; A 256 entries; g or β 16 B; 4 chunks of 131,072 B starting states; each
  // sequence's fp32 state 524,288 B read and written):
  //   q norm 200·1024, k norm 200·1024, cumsum 200·32, A 200·1568, solve 200·1536,
  //   W/U 200·4128, recurrence 200·3600 + 4·131,072 + 2·(1,048,576 + 4),
  //   output 200·3088 + 4·131,072
  const GdnPrefill::StageBytes s = GdnPrefill::stage_bytes(prefill, in);
  CHECK(s.bytes == std::array<double, 8>{204800, 204800, 6400, 313600, 307200, 825600, 2292872, 1141888});
  CHECK(GdnPrefill::bytes(prefill, in) == 5297160.0);

  const Metrics m = check_analytic<GdnPrefill>(prefill, in);
  // Eight launches, each at least its floor.
  const Roofline& rf = *h200().roofline();
  const double floor_s = rf.params().elementwise[static_cast<std::size_t>(ElementwiseKind::generic)].floor_s;
  CHECK(m.time_s > 8 * floor_s);

  check_zero<GdnPrefill>(prefill, {0, 100});
  check_zero<GdnPrefill>(prefill, {2, 0});
  check_monotone<GdnPrefill>(prefill, 64, 32768);
  check_sweep_2d<GdnPrefill>(prefill);
}

TEST_CASE("gdn_prefill: few long sequences are bound by the serial recurrence over their chunks") {
  const Roofline& rf = *h200().roofline();
  const GdnPrefill::Config small{Dtype::bf16, 1, 128, 2, 128};  // Qwen3.5-35B-A3B at tp 8
  // One 32768-token sequence: 512 chunks one after another, at one decode tile each.
  const double chain = 512 * rf.params().attention.decode_tile_s;
  const double one_long = GdnPrefill::roofline(rf, small, {1, 32768}).time_s;
  CHECK(one_long > chain);
  // The same tokens as 64 sequences of 512 run 64 chains of 8 chunks side by side, and the
  // bytes differ only by 63 more states: much faster.
  const double many_short = GdnPrefill::roofline(rf, small, {64, 512}).time_s;
  CHECK(many_short < one_long / 4);
  CHECK(GdnPrefill::bytes(small, {64, 512}) < 2 * GdnPrefill::bytes(small, {1, 32768}));
  // With many heads the bytes dominate instead: 64 v heads (128 programs, one wave on
  // 132 SMs) walk the same chain but move 32× the bytes, at no more than HBM bandwidth.
  const GdnPrefill::Config big{Dtype::bf16, 16, 128, 64, 128};  // Qwen3.5-397B-A17B at tp 1
  const double wide = GdnPrefill::roofline(rf, big, {1, 32768}).time_s;
  CHECK(GdnPrefill::bytes(big, {1, 32768}) > 25 * GdnPrefill::bytes(small, {1, 32768}));
  CHECK(wide > GdnPrefill::bytes(big, {1, 32768}) / rf.gpu().hbm_bandwidth);
  CHECK(wide > 2 * one_long);

  CHECK(GdnPrefill::transfer_distance(prefill, prefill) == 0);
  CHECK(GdnPrefill::transfer_distance(prefill, {Dtype::bf16, 4, 128, 8, 128}) == 1);  // twice the heads
  CHECK(GdnPrefill::transfer_distance(prefill, {Dtype::bf16, 1, 128, 4, 128}) == 4);  // twice the v/k group
  CHECK(GdnPrefill::transfer_distance(prefill, {Dtype::fp16, 2, 128, 4, 128}) ==
        std::numeric_limits<double>::infinity());

  CHECK_THROWS_WITH_AS(Kernel<GdnPrefill>(h200(), {Dtype::bf16, 4, 128, 6, 128}),
                       "gdn_prefill: num_v_heads 6 must be a multiple of num_k_heads 4 (each k head is shared by "
                       "num_v_heads / num_k_heads v heads)",
                       ConfigError);
  CHECK_THROWS_WITH_AS(Kernel<GdnPrefill>(h200(), {Dtype::bf16, 4, 512, 8, 128}),
                       "gdn_prefill: head_k_dim 512 must be in 1..256", ConfigError);
}
