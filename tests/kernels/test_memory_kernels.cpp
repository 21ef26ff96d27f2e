// L1 kernels: grouped_gemm, rms_norm, fused_add_rms_norm, silu_and_mul, rope, embedding,
// kv_cache_append, merge_attn_states, sampler, moe_router. Work formulas against hand arithmetic, the
// zero-work leaf, the analytic roofline, validation messages and the sweep grids.
#include <doctest/doctest.h>

#include "costdsl/costdsl.hpp"
#include "costdsl/concepts.hpp"
#include "costdsl/kernel.hpp"
#include "costdsl/kernels/embedding.hpp"
#include "costdsl/kernels/fused_add_rms_norm.hpp"
#include "costdsl/kernels/grouped_gemm.hpp"
#include "costdsl/kernels/kv_cache_append.hpp"
#include "costdsl/kernels/merge_attn_states.hpp"
#include "costdsl/kernels/moe_router.hpp"
#include "costdsl/kernels/rms_norm.hpp"
#include "costdsl/kernels/rope.hpp"
#include "costdsl/kernels/sampler.hpp"
#include "costdsl/kernels/silu_and_mul.hpp"
#include "costdsl/timing.hpp"

using namespace costdsl;
using namespace costdsl::kernels;

static_assert(KernelDef<GroupedGemm>);
static_assert(SlotKernel<Kernel<GroupedGemm>>);
static_assert(KernelDef<RmsNorm>);
static_assert(SlotKernel<Kernel<RmsNorm>>);
static_assert(KernelDef<FusedAddRmsNorm>);
static_assert(SlotKernel<Kernel<FusedAddRmsNorm>>);
static_assert(KernelDef<SiluAndMul>);
static_assert(SlotKernel<Kernel<SiluAndMul>>);
static_assert(KernelDef<Rope>);
static_assert(SlotKernel<Kernel<Rope>>);
static_assert(KernelDef<Embedding>);
static_assert(SlotKernel<Kernel<Embedding>>);
static_assert(KernelDef<KvCacheAppend>);
static_assert(SlotKernel<Kernel<KvCacheAppend>>);
static_assert(KernelDef<MergeAttnStates>);
static_assert(SlotKernel<Kernel<MergeAttnStates>>);
static_assert(KernelDef<Sampler>);
static_assert(SlotKernel<Kernel<Sampler>>);
static_assert(KernelDef<MoeRouter>);
static_assert(SlotKernel<Kernel<MoeRouter>>);

namespace {

const Timing& h200() {
  static const Timing t = load_timing("h200", TimingMode::roofline);
  return t;
}

// What every kernel must satisfy: zero work is an all-zero leaf; busy work is an
// ANALYTIC, positive roofline carrying our own flops/bytes and at or above the
// hardware bound; the sweep is non-empty, strictly increasing and within [lo, hi].
template <class K>
void common_checks(const typename K::Config& c, const typename K::Input& busy, const typename K::Input& zero,
                   double lo, double hi) {
  const Kernel<K> k(h200(), c);
  CHECK(K::flops(c, zero) == 0);
  CHECK(K::bytes(c, zero) == 0);
  CHECK(k.eval(zero) == Metrics{});

  const Metrics r = K::roofline(*h200().roofline(), c, busy);
  CHECK(has(r.coverage, Coverage::analytic));
  CHECK(r.time_s > 0);
  const Metrics m = k.eval(busy);
  CHECK(has(m.coverage, Coverage::analytic));
  CHECK(m.time_s == r.time_s);
  CHECK(m.flops == K::flops(c, busy));
  CHECK(m.bytes == K::bytes(c, busy));
  CHECK(m.energy_j > 0);
  const double lb = k.lower_bound_s(busy);
  CHECK(lb > 0);
  CHECK(lb <= m.time_s);

  const auto grid = K::sweep(c);
  REQUIRE_FALSE(grid.empty());
  CHECK(grid.size() <= 400);
  double prev = -1;
  for (const auto& in : grid) {
    const double x = K::point(c, in)[0];
    CHECK(x > prev);
    CHECK(x >= lo);
    CHECK(x <= hi);
    prev = x;
  }
}

}  // namespace

TEST_CASE("grouped_gemm") {
  const GroupedGemm::Config c{Dtype::bf16, 8, 256, 128};
  // 10 rows over 3 experts: flops 2·10·256·128 = 655360.
  CHECK(GroupedGemm::flops(c, {10, 3}) == 655360);
  // X 10·128·2 = 2560, three experts' W 3·256·128·2 = 196608, Y 10·256·2 = 5120.
  CHECK(GroupedGemm::bytes(c, {10, 3}) == 2560 + 196608 + 5120);
  // active 0 = min(10, 8) = 8 experts: W 8·256·128·2 = 524288.
  CHECK(GroupedGemm::bytes(c, {10, 0}) == 2560 + 524288 + 5120);
  // fp8, 16 experts 64×32, 4 rows → 4 experts: X 4·32·1 = 128, W 4·64·32·1 = 8192, bf16 Y 4·64·2 = 512.
  const GroupedGemm::Config f8{Dtype::fp8, 16, 64, 32};
  CHECK(GroupedGemm::bytes(f8, {4, 0}) == 128 + 8192 + 512);

  // Fewer active experts read fewer weights: never slower.
  const Roofline& rf = *h200().roofline();
  CHECK(GroupedGemm::roofline(rf, c, {10, 3}).time_s <= GroupedGemm::roofline(rf, c, {10, 8}).time_s);
  CHECK(GroupedGemm::roofline(rf, c, {0, 0}) == Metrics{});
  // More active experts than rows or experts is inconsistent.
  CHECK_THROWS_WITH_AS(GroupedGemm::bytes(c, {10, 9}),
                       "grouped_gemm: active_experts 9 exceeds min(tokens 10, num_experts 8) = 8", InputError);
  CHECK_THROWS_AS(GroupedGemm::bytes(c, {2, 3}), InputError);

  CHECK_THROWS_WITH_AS(Kernel<GroupedGemm>(h200(), {Dtype::bf16, 0, 256, 128}),
                       "grouped_gemm: num_experts 0 must be in 1..16384", ConfigError);
  CHECK_THROWS_WITH_AS(Kernel<GroupedGemm>(h200(), {Dtype::bf16, 8, 256, 0}),
                       "grouped_gemm: k 0 must be in 1..1048576", ConfigError);

  common_checks<GroupedGemm>(c, {10, 3}, {0, 0}, 1, 65536);
  CHECK(GroupedGemm::sweep(c).size() == 16 + 63);
  CHECK(GroupedGemm::sweep(c).front().tokens == 1);
}

TEST_CASE("rms_norm") {
  const RmsNorm::Config c{Dtype::bf16, 4096};
  // 3 rows of 4096: flops 4·3·4096 = 49152.
  CHECK(RmsNorm::flops(c, {3}) == 49152);
  // x 3·4096·2 = 24576 read, y 24576 written, w 4096·2 = 8192.
  CHECK(RmsNorm::bytes(c, {3}) == 24576 + 24576 + 8192);
  CHECK_THROWS_WITH_AS(Kernel<RmsNorm>(h200(), {Dtype::bf16, 0}), "rms_norm: hidden 0 must be in 1..1048576",
                       ConfigError);
  common_checks<RmsNorm>(c, {3}, {0}, 32, 65536);
  CHECK(RmsNorm::sweep(c).size() == 63);
}

TEST_CASE("fused_add_rms_norm") {
  const FusedAddRmsNorm::Config c{Dtype::bf16, 4096};
  // 3 rows of 4096: flops 5·3·4096 = 61440.
  CHECK(FusedAddRmsNorm::flops(c, {3}) == 61440);
  // x and residual read (2·24576), both written (2·24576), w 8192.
  CHECK(FusedAddRmsNorm::bytes(c, {3}) == 4 * 24576 + 8192);
  CHECK_THROWS_WITH_AS(Kernel<FusedAddRmsNorm>(h200(), {Dtype::bf16, 2097152}),
                       "fused_add_rms_norm: hidden 2097152 must be in 1..1048576", ConfigError);
  common_checks<FusedAddRmsNorm>(c, {3}, {0}, 32, 65536);
}

TEST_CASE("silu_and_mul") {
  const SiluAndMul::Config c{Dtype::bf16, 3584};  // Llama-3-8B I = 14336 at tp 4
  // 2 tokens: flops 4·2·3584 = 28672.
  CHECK(SiluAndMul::flops(c, {2}) == 28672);
  // gate + up read 2·2·3584·2 = 28672, out 2·3584·2 = 14336.
  CHECK(SiluAndMul::bytes(c, {2}) == 28672 + 14336);
  CHECK_THROWS_WITH_AS(Kernel<SiluAndMul>(h200(), {Dtype::bf16, 0}),
                       "silu_and_mul: intermediate 0 must be in 1..1048576", ConfigError);
  common_checks<SiluAndMul>(c, {2}, {0}, 32, 65536);
}

TEST_CASE("rope") {
  const Rope::Config c{Dtype::bf16, 8, 2, 128};
  // 5 tokens × (8 + 2) heads × 128 = 6400 elements, 3 flops each = 19200.
  CHECK(Rope::flops(c, {5}) == 19200);
  // q, k read + written 2·6400·2 = 25600; cos/sin 5·128·2 = 1280; positions 5·8 = 40.
  CHECK(Rope::bytes(c, {5}) == 25600 + 1280 + 40);
  CHECK_THROWS_WITH_AS(Kernel<Rope>(h200(), {Dtype::bf16, 8, 2, 127}),
                       "rope: head_dim 127 must be even (rope rotates pairs)", ConfigError);
  CHECK_THROWS_WITH_AS(Kernel<Rope>(h200(), {Dtype::bf16, 8, 0, 128}), "rope: num_kv_heads 0 must be in 1..1024",
                       ConfigError);
  common_checks<Rope>(c, {5}, {0}, 32, 65536);
}

TEST_CASE("embedding") {
  const Embedding::Config c{Dtype::bf16, 128256, 4096};
  CHECK(Embedding::flops(c, {7}) == 0);
  // 7 int32 ids = 28, 7 rows read 7·4096·2 = 57344, 7 rows written 57344.
  CHECK(Embedding::bytes(c, {7}) == 28 + 57344 + 57344);
  CHECK_THROWS_WITH_AS(Kernel<Embedding>(h200(), {Dtype::bf16, 0, 4096}),
                       "embedding: vocab 0 must be in 1..16777216", ConfigError);
  common_checks<Embedding>(c, {7}, {0}, 32, 65536);
}

TEST_CASE("kv_cache_append") {
  const KvCacheAppend::Config c{Dtype::bf16, 8, 128};
  // 3 tokens × K and V × 8 heads × 128 = 6144 elements: read 12288, written 12288, slots 3·8 = 24.
  CHECK(KvCacheAppend::flops(c, {3}) == 0);
  CHECK(KvCacheAppend::bytes(c, {3}) == 12288 + 12288 + 24);
  // fp8 cache: bf16 in (12288), fp8 out (6144), one scale multiply per element (6144 flops).
  const KvCacheAppend::Config f8{Dtype::fp8, 8, 128};
  CHECK(KvCacheAppend::flops(f8, {3}) == 6144);
  CHECK(KvCacheAppend::bytes(f8, {3}) == 12288 + 6144 + 24);
  CHECK_THROWS_WITH_AS(Kernel<KvCacheAppend>(h200(), {Dtype::bf16, 8, 0}),
                       "kv_cache_append: head_dim 0 must be in 1..1024", ConfigError);
  common_checks<KvCacheAppend>(c, {3}, {0}, 32, 65536);
  common_checks<KvCacheAppend>(f8, {643}, {0}, 32, 65536);  // design §7: 512 + 128 + 3 decodes
}

TEST_CASE("merge_attn_states") {
  const MergeAttnStates::Config c{Dtype::bf16, 4, 128, 2};  // Llama-3-70B at tp 8, hp 2: 4 heads per GPU
  // 3 tokens × 4 heads × 128 × 2 states, a multiply-add each: 6144.
  CHECK(MergeAttnStates::flops(c, {3}) == 6144);
  // 12 (token, head) rows: 2 partials read 12·128·2·2 = 6144, one written 3072, 2 fp32 LSEs 96.
  CHECK(MergeAttnStates::bytes(c, {3}) == 6144 + 3072 + 96);
  CHECK_THROWS_WITH_AS(Kernel<MergeAttnStates>(h200(), {Dtype::bf16, 4, 128, 0}),
                       "merge_attn_states: num_states 0 must be in 1..65536", ConfigError);
  CHECK_THROWS_WITH_AS(Kernel<MergeAttnStates>(h200(), {Dtype::bf16, 0, 128, 2}),
                       "merge_attn_states: num_heads 0 must be in 1..4096", ConfigError);
  common_checks<MergeAttnStates>(c, {3}, {0}, 32, 65536);
}

TEST_CASE("sampler") {
  const Sampler::Config c{Dtype::fp32, 151936};
  // 4 requests: flops 5·4·151936 = 3038720.
  CHECK(Sampler::flops(c, {4}) == 3038720);
  // fp32 logits 4·151936·4 = 2430976, token ids 4·8 = 32.
  CHECK(Sampler::bytes(c, {4}) == 2430976 + 32);
  CHECK_THROWS_WITH_AS(Kernel<Sampler>(h200(), {Dtype::fp32, 0}), "sampler: vocab 0 must be in 1..16777216",
                       ConfigError);
  common_checks<Sampler>(c, {4}, {0}, 1, 1024);
  const auto grid = Sampler::sweep(c);
  CHECK(grid.size() == 20);
  CHECK(grid[2].requests == 3);
  CHECK(grid.back().requests == 1024);
}

TEST_CASE("moe_router") {
  const MoeRouter::Config c{Dtype::bf16, 2048, 128, 8};  // Qwen3-30B-A3B
  // GEMM 2·4·128·2048 = 2097152 + softmax 4·4·128 = 2048.
  CHECK(MoeRouter::flops(c, {4}) == 2097152 + 2048);
  // GEMM: X 4·2048·2 = 16384, W 128·2048·2 = 524288, logits 4·128·2 = 1024;
  // top-k: logits 1024 read, 4·8 weights + ids at 8 bytes = 256.
  CHECK(MoeRouter::bytes(c, {4}) == 16384 + 524288 + 1024 + 1024 + 256);
  // Two launches in series: the times add.
  const Roofline& rf = *h200().roofline();
  const double gemm = rf.gemm(4, 128, 2048, Dtype::bf16, Dtype::bf16, Dtype::bf16).time_s;
  const double topk = rf.memory_bound(2048, 1280, ElementwiseKind::generic).time_s;
  CHECK(MoeRouter::roofline(rf, c, {4}).time_s == doctest::Approx(gemm + topk));
  CHECK_THROWS_WITH_AS(Kernel<MoeRouter>(h200(), {Dtype::bf16, 2048, 8, 9}),
                       "moe_router: top_k 9 must be in 1..num_experts (8)", ConfigError);
  CHECK_THROWS_WITH_AS(Kernel<MoeRouter>(h200(), {Dtype::bf16, 0, 128, 8}),
                       "moe_router: hidden 0 must be in 1..1048576", ConfigError);
  common_checks<MoeRouter>(c, {4}, {0}, 1, 65536);
  CHECK(MoeRouter::sweep(c).size() == 16 + 63);
}
