// L1 attention and communication kernels: work formulas on hand-computed examples,
// zero work, the roofline path, validation, sweeps and the H200 sanity figures.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <set>
#include <utility>
#include <vector>

#include "costdsl/costdsl.hpp"
#include "costdsl/kernel.hpp"
#include "costdsl/kernels/all_gather.hpp"
#include "costdsl/kernels/all_reduce.hpp"
#include "costdsl/kernels/all_to_all.hpp"
#include "costdsl/kernels/attn_decode.hpp"
#include "costdsl/kernels/attn_prefill.hpp"
#include "costdsl/kernels/mla_decode.hpp"
#include "costdsl/kernels/mla_prefill.hpp"
#include "costdsl/kernels/p2p.hpp"
#include "costdsl/kernels/reduce_scatter.hpp"
#include "costdsl/timing.hpp"

#include "leaf_checks.hpp"
#include "costdsl/token_axis.hpp"

using namespace costdsl;
using namespace costdsl::kernels;

#define COSTDSL_CHECK_KERNEL(K)                         \
  static_assert(costdsl::KernelDef<K>);                 \
  static_assert(costdsl::SlotKernel<costdsl::Kernel<K>>)
COSTDSL_CHECK_KERNEL(AttnPrefill);
COSTDSL_CHECK_KERNEL(AttnDecode);
COSTDSL_CHECK_KERNEL(MlaPrefill);
COSTDSL_CHECK_KERNEL(MlaDecode);
COSTDSL_CHECK_KERNEL(AllReduce);
COSTDSL_CHECK_KERNEL(AllGather);
COSTDSL_CHECK_KERNEL(ReduceScatter);
COSTDSL_CHECK_KERNEL(AllToAll);
COSTDSL_CHECK_KERNEL(P2p);
#undef COSTDSL_CHECK_KERNEL

namespace {

const Timing& h200() {
  static const Timing t = load_timing("h200", TimingMode::roofline);
  return t;
}

template <class Input>
std::vector<std::uint64_t> fields_of(const Input& in) {
  std::vector<std::uint64_t> v;
  for_each_field(in, [&](std::string_view, const auto& x) { v.push_back(x); });
  return v;
}

// Non-empty, strictly increasing in field order (no duplicate points), each point
// accepted by `in_range`, and every point a real call (positive work).
template <class K, class Pred>
void check_sweep(const typename K::Config& c, std::size_t expected_size, Pred in_range) {
  const auto grid = K::sweep(c);
  REQUIRE(!grid.empty());
  CHECK(grid.size() == expected_size);
  for (std::size_t i = 0; i < grid.size(); ++i) {
    CHECK(in_range(grid[i]));
    CHECK(K::bytes(c, grid[i]) > 0);
    if (i > 0) CHECK(fields_of(grid[i - 1]) < fields_of(grid[i]));
  }
}

using kernel_test::check_analytic;
using kernel_test::check_zero;

// Prefill sweeps: one fresh request per point, append over the 18 token-axis points
// 32..32768 (powers of two and 3·2^k).
template <class K>
void check_prefill_sweep(const typename K::Config& c) {
  const auto in_token_axis = [](std::uint64_t a) {
    return std::find(token_axis.begin(), token_axis.end(), a) != token_axis.end();
  };
  check_sweep<K>(c, 18, [&](const typename K::Input& p) {
    return p.batch == 1 && p.prefix == 0 && p.append >= 32 && p.append <= 32768 && in_token_axis(p.append);
  });
  // Fresh points: the table's append column is the request's own length.
  for (const auto& p : K::sweep(c)) CHECK(K::point(c, p)[1] == double(p.append));
}

}  // namespace

TEST_CASE("attn_prefill: one batched launch, work = the sum of each request's causal work") {
  const AttnPrefill::Config c{Dtype::bf16, 32, 8, 128, 0};
  const AttnPrefill::Input in{2, 1024, 512};  // two requests: 1024 cached, 512 new each
  // pairs per request = 512 · (1024 + 256) = 655,360; 4·32·128 = 16,384 flops per pair
  // → 10,737,418,240 per request, × 2 requests.
  CHECK(AttnPrefill::flops(c, in) == 21474836480.0);
  // Per request: Q + O = 2·512·32·128 = 4,194,304 elements; K + V = 2·1536·8·128 =
  // 3,145,728 elements; 7,340,032 × 2 B = 14,680,064 B, × 2 requests.
  CHECK(AttnPrefill::bytes(c, in) == 29360128.0);
  // Looked up as the fresh prefill of equal causal work per request:
  // append_eq² / 2 = 655,360 → append_eq = √1,310,720; cache axes (requests, pairs).
  CHECK(AttnPrefill::point(c, in)[0] == 2);
  CHECK(AttnPrefill::point(c, in)[1] == doctest::Approx(std::sqrt(1310720.0)));
  CHECK(AttnPrefill::to_cache(AttnPrefill::point(c, in))[1] == doctest::Approx(655360.0));
  CHECK(AttnPrefill::point(c, {7, 0, 4096}) == std::array<double, 2>{7, 4096});
  CHECK(AttnPrefill::to_cache({7, 4096}) == std::array<double, 2>{7, 4096.0 * 4096 / 2});
  CHECK(AttnPrefill::off_grid == interp::OffGrid::product);

  const Metrics two = check_analytic<AttnPrefill>(c, in);
  const Metrics one = check_analytic<AttnPrefill>(c, {1, 1024, 512});
  // One launch of two requests: more than one request, at most two launches' worth.
  CHECK(two.time_s > one.time_s);
  CHECK(two.time_s < 2 * one.time_s);

  // Many short prefills are many small causal triangles, not one long sequence: 128
  // requests × 64 tokens is 1/128 of the work of one 8192-token prefill and much faster.
  const Metrics short_batch = check_analytic<AttnPrefill>(c, {128, 0, 64});
  const Metrics one_long = check_analytic<AttnPrefill>(c, {1, 0, 8192});
  CHECK(AttnPrefill::flops(c, {128, 0, 64}) * 128 == AttnPrefill::flops(c, {1, 0, 8192}));
  CHECK(short_batch.time_s < one_long.time_s / 4);

  check_zero<AttnPrefill>(c, {0, 1024, 512});
  check_zero<AttnPrefill>(c, {3, 4096, 0});  // a cached prefix with no new rows runs nothing

  CHECK_THROWS_WITH_AS(Kernel<AttnPrefill>(h200(), {Dtype::bf16, 32, 6, 128, 0}),
                       "attn_prefill: num_kv_heads 6 must divide num_qo_heads 32 (GQA groups)", ConfigError);
  CHECK_THROWS_WITH_AS(Kernel<AttnPrefill>(h200(), {Dtype::bf16, 32, 8, 0, 0}),
                       "attn_prefill: head_dim 0 must be in 1..1024", ConfigError);

  check_prefill_sweep<AttnPrefill>(c);
}

TEST_CASE("attn_decode: paged GQA decode over the KV cache") {
  const AttnDecode::Config c{Dtype::bf16, 8, 1, 128};
  const AttnDecode::Input in{64, 64 * 2048};  // 64 requests × 2048 KV = 131,072 tokens
  // 4 · 8 · 128 = 4096 flops per cached token × 131,072.
  CHECK(AttnDecode::flops(c, in) == 536870912.0);
  // K + V: 2 · 131,072 · 1 · 128 · 2 B = 67,108,864; q + o: 2 · 64 · 8 · 128 · 2 B = 262,144.
  CHECK(AttnDecode::bytes(c, in) == 67371008.0);
  // An fp8 cache halves K + V; q and o stay bf16.
  CHECK(AttnDecode::bytes({Dtype::fp8, 8, 1, 128}, in) == 33554432.0 + 262144.0);
  CHECK(AttnDecode::off_grid == interp::OffGrid::weighted);

  const Metrics m = check_analytic<AttnDecode>(c, in);
  // Sanity (H200): memory-bound, within 2× of KV bytes / HBM bandwidth + floor.
  const Roofline& rf = *h200().roofline();
  const double kv_bytes = 67108864.0;
  const double floor_s = rf.params().attention.floor_s;
  CHECK(m.time_s > kv_bytes / rf.gpu().hbm_bandwidth);
  CHECK(m.time_s < 2 * (kv_bytes / rf.gpu().hbm_bandwidth + floor_s));
  CHECK(AttnDecode::flops(c, in) / rf.gpu().peak_flops(Dtype::bf16) < 0.1 * kv_bytes / rf.gpu().hbm_bandwidth);

  check_zero<AttnDecode>(c, {0, 0});
  check_zero<AttnDecode>(c, {0, 4096});

  CHECK_THROWS_WITH_AS(Kernel<AttnDecode>(h200(), {Dtype::bf16, 8, 3, 128}),
                       "attn_decode: num_kv_heads 3 must divide num_qo_heads 8 (GQA groups)", ConfigError);
  CHECK_THROWS_WITH_AS(Kernel<AttnDecode>(h200(), {Dtype::bf16, 0, 1, 128}),
                       "attn_decode: num_qo_heads 0 must be in 1..1024", ConfigError);

  // batch 1..256 (9) × average KV 1..131072 (18): at 512 B per token all 162 fit
  // (the largest, 256 × 131072 = 2^25 tokens, is 16 GiB).
  const auto decode_cell = [](const auto& p) {
    return p.batch >= 1 && p.batch <= 256 && p.total_kv >= p.batch && p.total_kv <= 131072 * p.batch;
  };
  check_sweep<AttnDecode>(c, 162, decode_cell);
  // The brief's band (average 128..32768) is inside it.
  const auto grid = AttnDecode::sweep(c);
  for (std::uint64_t b = 1; b <= 256; b *= 2)
    for (std::uint64_t avg = 128; avg <= 32768; avg *= 2)
      CHECK(std::count_if(grid.begin(), grid.end(),
                          [&](const auto& p) { return p.batch == b && p.total_kv == b * avg; }) == 1);
  // 8 kv heads × 128 × 2 (K, V) × 2 B = 4 KiB per token: the 64 GiB cap keeps
  // batch·avg ≤ 2^24 (2^12 B · 2^24 = 64 GiB exactly), i.e. 2^i · 2^j with i + j ≤ 24,
  // i ≤ 8, j ≤ 17: only (8, 17) drops out.
  CHECK(AttnDecode::sweep({Dtype::bf16, 64, 8, 128}).size() == 161);
  // 64 kv heads × 256: 64 KiB per token, batch·avg ≤ 2^20: i + j ≤ 20 drops the
  // 1 + 2 + 3 + 4 + 5 = 15 cells with i + j in 21..25.
  CHECK(AttnDecode::sweep({Dtype::bf16, 64, 64, 256}).size() == 147);
}

TEST_CASE("mla_prefill: up-projected DeepSeek-V3 MLA") {
  const auto c = MlaPrefill::deepseek_v3(Dtype::bf16, 16);  // 128 heads at TP 8
  CHECK(c.kv_lora_rank == 512);
  CHECK(c.qk_nope_head_dim == 128);
  CHECK(c.qk_rope_head_dim == 64);
  CHECK(c.v_head_dim == 128);
  const MlaPrefill::Input in{1, 0, 1024};
  // pairs = 1024 · 512 = 524,288; per pair and head 2·192 (QK) + 2·128 (PV) = 640;
  // × 16 heads = 10,240 flops per pair.
  CHECK(MlaPrefill::flops(c, in) == 5368709120.0);
  // Per head and token 192 + 128 = 320 elements for q+o (1024 rows) and for k+v
  // (1024 keys): 16 · 320 · 2048 = 10,485,760 elements × 2 B.
  CHECK(MlaPrefill::bytes(c, in) == 20971520.0);
  CHECK(MlaPrefill::point(c, {3, 0, 1024}) == std::array<double, 2>{3, 1024});
  CHECK(MlaPrefill::to_cache({3, 1024}) == std::array<double, 2>{3, 524288});

  check_analytic<MlaPrefill>(c, in);
  check_zero<MlaPrefill>(c, {1, 8192, 0});
  check_zero<MlaPrefill>(c, {0, 0, 512});

  CHECK_THROWS_WITH_AS(Kernel<MlaPrefill>(h200(), {Dtype::bf16, 16, 512, 128, 64, 0}),
                       "mla_prefill: v_head_dim 0 must be in 1..1024", ConfigError);
  check_prefill_sweep<MlaPrefill>(c);
}

TEST_CASE("mla_decode: weight-absorbed MLA over the latent cache") {
  const auto c = MlaDecode::deepseek_v3(Dtype::bf16, 16);
  const MlaDecode::Input in{32, 65536};  // 32 requests × 2048 average KV
  // Per token and head 2·(512 + 64) (QK) + 2·512 (PV) = 2176; × 16 heads × 65,536.
  CHECK(MlaDecode::flops(c, in) == 2281701376.0);
  // Latent cache once: 65,536 · 576 · 2 B = 75,497,472; per request q (16·576) + o (16·512)
  // = 17,408 elements: 32 · 17,408 · 2 B = 1,114,112.
  CHECK(MlaDecode::bytes(c, in) == 76611584.0);
  // The cache is shared by all heads: 4× the heads adds no cache bytes.
  CHECK(MlaDecode::bytes(MlaDecode::deepseek_v3(Dtype::bf16, 64), in) == 75497472.0 + 4 * 1114112.0);

  const Metrics m = check_analytic<MlaDecode>(c, in);
  CHECK(m.time_s > 75497472.0 / h200().gpu().hbm_bandwidth);
  check_zero<MlaDecode>(c, {0, 0});

  CHECK_THROWS_WITH_AS(Kernel<MlaDecode>(h200(), {Dtype::bf16, 0, 512, 128, 64, 128}),
                       "mla_decode: num_heads 0 must be in 1..1024", ConfigError);
  // 576 · 2 B = 1152 B per token: 256 × 131072 tokens is 36 GiB, all 162 cells fit.
  check_sweep<MlaDecode>(c, 162, [](const MlaDecode::Input& p) {
    return p.batch >= 1 && p.batch <= 256 && p.total_kv >= p.batch && p.total_kv <= 131072 * p.batch;
  });
}

TEST_CASE("collectives: bus bytes, one-GPU no-ops, validation, sweeps") {
  // Bus bytes = bus factor × message.
  CHECK(AllReduce::bytes({8}, {32 * 1048576}) == 58720256.0);      // 2·7/8 = 1.75 × 33,554,432
  CHECK(AllGather::bytes({8}, {1048576}) == 917504.0);             // 7/8 × 1,048,576
  CHECK(ReduceScatter::bytes({4}, {1048576}) == 786432.0);         // 3/4 × 1,048,576
  CHECK(AllToAll::bytes({8}, {4194304, 1048576}) == 3670016.0);    // 7/8 × max(4 MiB, 1 MiB)
  CHECK(AllToAll::bytes({8}, {1048576, 4194304}) == 3670016.0);    // the max, whichever side
  CHECK(P2p::bytes({16}, {1048576}) == 1048576.0);                 // the message, once
  CHECK(AllReduce::flops({8}, {1048576}) == 0);
  CHECK(AllToAll::flops({8}, {1, 1}) == 0);

  check_analytic<AllReduce>({8}, {1 << 20});
  check_analytic<AllGather>({8}, {1 << 20});
  check_analytic<ReduceScatter>({16}, {1 << 20});
  check_analytic<AllToAll>({8}, {1 << 20, 1 << 18});
  const Metrics nvlink = check_analytic<P2p>({8}, {64 << 20});
  const Metrics network = check_analytic<P2p>({16}, {64 << 20});
  CHECK(network.time_s > 5 * nvlink.time_s);  // 16 GPUs span two nodes

  // Sanity (H200): an 8-GPU 32 MiB all-reduce takes about 0.2 ms.
  const Metrics ar = Kernel<AllReduce>(h200(), {8}).eval({32 * 1048576});
  CHECK(ar.time_s > 0.15e-3);
  CHECK(ar.time_s < 0.25e-3);

  // One GPU (or no bytes): a zero-time no-op.
  check_zero<AllReduce>({1}, {32 << 20});
  check_zero<AllGather>({1}, {32 << 20});
  check_zero<ReduceScatter>({1}, {32 << 20});
  check_zero<AllToAll>({1}, {32 << 20, 1 << 20});
  check_zero<P2p>({1}, {32 << 20});
  check_zero<AllReduce>({8}, {0});
  check_zero<AllToAll>({8}, {0, 0});
  CHECK(P2p::roofline(*h200().roofline(), {1}, {32 << 20}) == Metrics{});

  CHECK_THROWS_WITH_AS(Kernel<AllReduce>(h200(), {0}), "all_reduce: num_gpus 0 must be in 1..65536", ConfigError);
  CHECK_THROWS_WITH_AS(Kernel<AllGather>(h200(), {0}), "all_gather: num_gpus 0 must be in 1..65536", ConfigError);
  CHECK_THROWS_WITH_AS(Kernel<ReduceScatter>(h200(), {100000}),
                       "reduce_scatter: num_gpus 100000 must be in 1..65536", ConfigError);
  CHECK_THROWS_WITH_AS(Kernel<AllToAll>(h200(), {0}), "all_to_all: num_gpus 0 must be in 1..65536", ConfigError);
  CHECK_THROWS_WITH_AS(Kernel<P2p>(h200(), {0}), "p2p: num_gpus 0 must be in 1..65536", ConfigError);

  // 2 KiB .. 1 GiB in powers of two: 20 sizes (all_to_all: 20 × 20).
  const auto pow2_msg = [](std::uint64_t b) { return b >= 2048 && b <= (1ull << 30) && (b & (b - 1)) == 0; };
  const auto one_d = [&](const auto& p) { return pow2_msg(p.bytes); };
  check_sweep<AllReduce>({8}, 20, one_d);
  check_sweep<AllGather>({8}, 20, one_d);
  check_sweep<ReduceScatter>({8}, 20, one_d);
  check_sweep<P2p>({16}, 20, one_d);
  check_sweep<AllToAll>({8}, 400,
                        [&](const AllToAll::Input& p) { return pow2_msg(p.send_bytes) && pow2_msg(p.recv_bytes); });
  CHECK(AllToAll::off_grid == interp::OffGrid::weighted);
  for (const auto& b : {AllGather::default_backends(), ReduceScatter::default_backends(),
                        AllToAll::default_backends(), P2p::default_backends()})
    CHECK(b == std::vector<std::string>{"nccl"});
  // All-reduce: NCCL or the framework's custom all-reduce, which answers only where measured.
  CHECK(AllReduce::default_backends() == std::vector<std::string>{"nccl", "custom"});
  CHECK(AllReduce::bounded_backend("custom"));
  CHECK_FALSE(AllReduce::bounded_backend("nccl"));
  CHECK(AllReduce::family == Family::communication);
  CHECK(P2p::family == Family::communication);
}
