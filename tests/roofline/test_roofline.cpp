#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "costdsl/costdsl.hpp"
#include "costdsl/detail/roofline_param_fields.hpp"
#include "costdsl/gpu_spec.hpp"
#include "costdsl/kernel.hpp"
#include "costdsl/kernels/gemm.hpp"
#include "costdsl/load_timing.hpp"
#include "costdsl/roofline.hpp"

using namespace costdsl;

namespace {

const GpuCatalog& catalog() {
  static const GpuCatalog cat = GpuCatalog::load_default();
  return cat;
}
Roofline roofline(const char* gpu) { return Roofline(catalog().find(gpu), load_default_roofline_params()); }
constexpr double MiB = 1024.0 * 1024.0;

}  // namespace

TEST_CASE("committed roofline.json equals the built-in defaults") {
  const auto loaded = load_default_roofline_params();
  const RooflineParams def;
  for (std::size_t i = 0; i < all_dtypes.size(); ++i) CHECK(loaded.gemm.eff_compute[i] == def.gemm.eff_compute[i]);
  CHECK(loaded.gemm.k_overhead == def.gemm.k_overhead);
  CHECK(loaded.gemm.overlap_p == def.gemm.overlap_p);
  CHECK(loaded.gemm.memory.eff_max == def.gemm.memory.eff_max);
  for (std::size_t i = 0; i < elementwise_kind_count; ++i) {
    CHECK(loaded.elementwise[i].eff_max == def.elementwise[i].eff_max);
    CHECK(loaded.elementwise[i].sat_bytes == def.elementwise[i].sat_bytes);
    CHECK(loaded.elementwise[i].floor_s == def.elementwise[i].floor_s);
  }
  CHECK(loaded.attention.eff_compute_prefill == def.attention.eff_compute_prefill);
  CHECK(loaded.attention.eff_compute_prefill_fp8 == def.attention.eff_compute_prefill_fp8);
  CHECK(loaded.attention.prefill_tile_s == def.attention.prefill_tile_s);
  CHECK(loaded.attention.eff_mem == def.attention.eff_mem);
  CHECK(loaded.attention.mem_sat_bytes == def.attention.mem_sat_bytes);
  CHECK(loaded.attention.decode_tile_s == def.attention.decode_tile_s);
  CHECK(loaded.attention.overlap_p == def.attention.overlap_p);
  CHECK(loaded.attention.floor_s == def.attention.floor_s);
  CHECK(loaded.collective.alpha_s == def.collective.alpha_s);
  CHECK(loaded.collective.alpha_per_log2_s == def.collective.alpha_per_log2_s);
  CHECK(loaded.collective.eff_max == def.collective.eff_max);
  CHECK(loaded.custom_all_reduce.alpha_s == def.custom_all_reduce.alpha_s);
  CHECK(loaded.custom_all_reduce.alpha_per_gpu_s == def.custom_all_reduce.alpha_per_gpu_s);
  CHECK(loaded.custom_all_reduce.eff_max == def.custom_all_reduce.eff_max);
  CHECK(loaded.custom_all_reduce.sat_bytes == def.custom_all_reduce.sat_bytes);
  CHECK(loaded.custom_all_reduce.max_bytes == def.custom_all_reduce.max_bytes);
  CHECK(loaded.custom_all_reduce.max_gpus == def.custom_all_reduce.max_gpus);
  CHECK(loaded.gemm.eff_tile_m64 == def.gemm.eff_tile_m64);
  CHECK(loaded.gemm.memory.sat_bytes == def.gemm.memory.sat_bytes);
  CHECK(loaded.gemm.memory.floor_s == def.gemm.memory.floor_s);
  CHECK(loaded.collective.sat_bytes == def.collective.sat_bytes);
  CHECK(loaded.p2p_inter_node.alpha_s == def.p2p_inter_node.alpha_s);
  CHECK(loaded.p2p_intra_node.eff_max == def.p2p_intra_node.eff_max);
}

TEST_CASE("H200 sanity figures (design §9)") {
  const auto rf = roofline("H200");
  // bf16 4096^3 GEMM reaches ~80% of the 989 TFLOP/s peak: 0.17-0.18 ms measured; the
  // six-GPU fit gives 75% (0.185 ms), its price for holding on GPUs it has not seen.
  const auto big = rf.gemm(4096, 4096, 4096, Dtype::bf16, Dtype::bf16, Dtype::bf16);
  CHECK(big.time_ms() > 0.165);
  CHECK(big.time_ms() < 0.19);
  CHECK(big.flops == doctest::Approx(2.0 * 4096 * 4096 * 4096));
  CHECK(big.bytes == doctest::Approx(3.0 * 2 * 4096 * 4096));
  CHECK(big.coverage == Coverage::analytic);
  // m = 1 decode GEMV: the 128 MiB weight read at ~81% of 4.8 TB/s: ~0.035 ms.
  const auto gemv = rf.gemm(1, 8192, 8192, Dtype::bf16, Dtype::bf16, Dtype::bf16);
  CHECK(gemv.time_ms() > 0.030);
  CHECK(gemv.time_ms() < 0.040);
  // 8-GPU NCCL all-reduce of 32 MiB: ~300 GB/s bus bandwidth: ~0.2 ms measured. NCCL reaches
  // a smaller share of NVLink 5 on Blackwell than of NVLink 4 on Hopper, and the shared fit
  // lands between: 0.24 ms (docs/accuracy.md, all-reduce).
  const auto ar = rf.collective(CollectiveKind::all_reduce, 32 * MiB, 8);
  CHECK(ar.time_ms() > 0.18);
  CHECK(ar.time_ms() < 0.26);
  CHECK(ar.bytes == doctest::Approx(1.75 * 32 * MiB));
}

TEST_CASE("gemm: monotone, wave-quantised, memory-bound at small m") {
  const auto rf = roofline("h100_sxm");
  const auto t = [&](double m, double n, double k) {
    return rf.gemm(m, n, k, Dtype::bf16, Dtype::bf16, Dtype::bf16).time_s;
  };
  // Small m: the weight read dominates, so m = 1..16 cost about the same.
  CHECK(t(16, 8192, 8192) / t(1, 8192, 8192) < 1.1);
  CHECK(t(1, 8192, 8192) >= rf.lower_bound_s(2.0 * 8192 * 8192, 2.0 * 8192 * 8192, Dtype::bf16));
  // Larger shapes never get faster.
  double prev = 0;
  for (double m : {1.0, 64.0, 512.0, 2048.0, 8192.0, 32768.0}) {
    CHECK(t(m, 4096, 4096) >= prev);
    prev = t(m, 4096, 4096);
  }
  // Big GEMMs sit above the hardware bound but within ~1.5x of it.
  const double lb = rf.lower_bound_s(2.0 * 8192 * 8192 * 8192, 0, Dtype::bf16);
  CHECK(t(8192, 8192, 8192) > lb);
  CHECK(t(8192, 8192, 8192) < 1.5 * lb);
  // fp8 runs faster than bf16 on big shapes; a weight-only fp8 GEMM computes at bf16.
  CHECK(rf.gemm(8192, 8192, 8192, Dtype::fp8, Dtype::fp8, Dtype::bf16).time_s < t(8192, 8192, 8192));
  CHECK(Roofline::compute_dtype(Dtype::bf16, Dtype::fp8) == Dtype::bf16);
  CHECK(rf.gemm(0, 4096, 4096, Dtype::bf16, Dtype::bf16, Dtype::bf16) == Metrics{});
  CHECK_THROWS_AS(rf.gemm(-1, 4096, 4096, Dtype::bf16, Dtype::bf16, Dtype::bf16), InputError);
  CHECK_THROWS_AS(rf.gemm(NAN, 4096, 4096, Dtype::bf16, Dtype::bf16, Dtype::bf16), InputError);
}

TEST_CASE("gemm: an fp8 GEMM whose input arrives quantized runs without its quantize kernel") {
  const Timing t = load_timing("h100_sxm", TimingMode::roofline);
  const auto rf = roofline("h100_sxm");
  const Kernel<kernels::Gemm> own(t, {Dtype::fp8, 8192, 8192}), fused(t, {Dtype::fp8, 8192, 8192, Dtype::fp8});
  for (std::uint64_t m : {1u, 64u, 4096u}) {
    const double quantize = rf.memory_bound(0, double(m) * 8192 * 3, ElementwiseKind::quantize).time_s;
    CHECK(own.eval({m}).time_s - fused.eval({m}).time_s == doctest::Approx(quantize).epsilon(1e-9));
    CHECK(own.eval({m}).bytes - fused.eval({m}).bytes == doctest::Approx(double(m) * 8192 * 3));
  }
  // bf16 input is every GEMM's default; fp8 input only for an fp8 GEMM.
  CHECK(kernels::Gemm::Config{Dtype::fp4, 1, 1}.input_dtype == Dtype::bf16);
  CHECK_THROWS_WITH_AS(Kernel<kernels::Gemm>(t, {Dtype::fp4, 8192, 8192, Dtype::fp4}),
                       "gemm: input_dtype fp4 with dtype fp4: activations arrive in bf16, or already in per-tensor "
                       "fp8 for an fp8 GEMM (a producer's fused quantize)",
                       ConfigError);
  CHECK_THROWS_AS(Kernel<kernels::Gemm>(t, {Dtype::bf16, 8192, 8192, Dtype::fp8}), ConfigError);
}

TEST_CASE("fp8 on A100 is an error") {
  const auto rf = roofline("A100");
  CHECK_THROWS_AS(rf.gemm(128, 4096, 4096, Dtype::fp8, Dtype::fp8, Dtype::bf16), InputError);
  CHECK_NOTHROW(rf.gemm(128, 4096, 4096, Dtype::bf16, Dtype::bf16, Dtype::bf16));
}

TEST_CASE("grouped gemm") {
  const auto rf = roofline("h200_sxm");
  // One group is a plain GEMM.
  CHECK(rf.grouped_gemm(4096, 4096, 4096, 1, Dtype::bf16, Dtype::bf16, Dtype::bf16).time_s ==
        doctest::Approx(rf.gemm(4096, 4096, 4096, Dtype::bf16, Dtype::bf16, Dtype::bf16).time_s));
  // 128 experts x 8 tokens each: every expert's weights are read once, so it costs far
  // more than one GEMM with the same total m.
  const auto moe = rf.grouped_gemm(1024, 1536, 4096, 128, Dtype::bf16, Dtype::bf16, Dtype::bf16);
  CHECK(moe.bytes == doctest::Approx(2.0 * (1024 * 4096 + 128.0 * 1536 * 4096 + 1024 * 1536)));
  CHECK(moe.time_s > 5 * rf.gemm(1024, 1536, 4096, Dtype::bf16, Dtype::bf16, Dtype::bf16).time_s);
  CHECK(moe.time_s > moe.bytes / rf.gpu().hbm_bandwidth);
  // Uneven routing: skipped experts read nothing.
  const std::array<double, 4> ms{512, 0, 0, 512};
  const auto uneven = rf.grouped_gemm(ms, 1536, 4096, Dtype::bf16, Dtype::bf16, Dtype::bf16);
  CHECK(uneven.bytes == doctest::Approx(2.0 * (1024 * 4096 + 2.0 * 1536 * 4096 + 1024 * 1536)));
  CHECK(uneven.time_s > 0);
  CHECK_THROWS_AS(rf.grouped_gemm(1024, 1536, 4096, 0, Dtype::bf16, Dtype::bf16, Dtype::bf16), InputError);
}

TEST_CASE("elementwise: efficiency falls for small transfers; per-kind curves") {
  const auto rf = roofline("h100_sxm");
  const double bw = rf.gpu().hbm_bandwidth;
  const auto achieved = [&](double b, ElementwiseKind k) { return b / (bw * rf.memory_bound(0, b, k).time_s); };
  CHECK(achieved(4 * 1024, ElementwiseKind::generic) < 0.1);
  CHECK(achieved(1e9, ElementwiseKind::generic) == doctest::Approx(0.8).epsilon(0.01));
  CHECK(achieved(1e9, ElementwiseKind::residual_add) > achieved(1e9, ElementwiseKind::norm));
  CHECK(rf.memory_bound(0, 0) == Metrics{});
  CHECK(rf.memory_bound(10, 1e6).coverage == Coverage::analytic);
  CHECK_THROWS_AS(rf.memory_bound(0, -1), InputError);
}

TEST_CASE("attention: tiled prefill, decode bound by KV bytes or by its work tiles") {
  const auto rf = roofline("h200_sxm");
  const auto& p = rf.params().attention;
  const double sms = rf.gpu().sm_count, peak = 989e12, bw = rf.gpu().hbm_bandwidth;
  // A long prefill: 1 request × 4096 tokens, 32 qo / 8 kv heads (g = 4), hd 128.
  // T = 4096·4/128 = 128 query tiles per KV head; average keys k̄ = min(4096, 32·129/2) = 2064
  // → 17 key blocks per tile; 8 heads × 128 × 17 blocks × 128·128·2·256 flops.
  const AttentionShape big{1, 0, 4096, 32, 8, 128, 128, Dtype::bf16};
  const double tiled = 8.0 * 128 * 17 * 128 * 128 * 2 * 256;
  const double tc = tiled / (peak * p.eff_compute_prefill) + 8.0 * 128 * p.prefill_tile_s / sms;
  const double pf_bytes = 64 * MiB;
  const double tm = bw > 0 ? pf_bytes / (bw * p.eff_mem * -std::expm1(-pf_bytes / p.mem_sat_bytes)) : 0;
  const double hi = std::max(tc, tm);
  const double want = p.floor_s + hi * std::pow(std::pow(tc / hi, p.overlap_p) + std::pow(tm / hi, p.overlap_p),
                                                1 / p.overlap_p);
  CHECK(rf.attention_prefill(big, 1e12, pf_bytes).time_s == doctest::Approx(want));
  // Short prefills: one request of 64 tokens fills one query tile (64·4 rows ≤ 128? no: 256
  // rows = 2 tiles) per KV head; 128 of them are 128× the tiles, not a 8192-token sequence.
  const AttentionShape shorts{128, 0, 64, 32, 8, 128, 128, Dtype::bf16};
  const AttentionShape longone{1, 0, 8192, 32, 8, 128, 128, Dtype::bf16};
  CHECK(rf.attention_prefill(shorts, 1, 1).time_s < rf.attention_prefill(longone, 1, 1).time_s / 4);
  CHECK(rf.attention_prefill({0, 0, 64, 32, 8, 128, 128, Dtype::bf16}, 0, 0) == Metrics{});

  // Decode: 64 requests × 8k tokens of Llama-3-8B-sized KV is bound by its bytes...
  const double kv = 2.0 * 8 * 128 * 2 * 8192 * 64;
  const AttentionShape dec{64, 8192, 1, 32, 8, 128, 128, Dtype::bf16};
  const auto d = rf.attention_decode(dec, kv / 2, kv);
  CHECK(d.time_s > kv / bw);
  CHECK(d.time_s < 2 * kv / (bw * p.eff_mem) + p.floor_s);
  // ...1024 requests with 4 tokens each by their work tiles: 1024 · 8 tiles.
  const AttentionShape tiny{1024, 4, 1, 32, 8, 128, 128, Dtype::bf16};
  const double tiny_bytes = 2.0 * 8 * 128 * 2 * 4 * 1024;
  const auto t = rf.attention_decode(tiny, 0, tiny_bytes);
  CHECK(t.time_s > 1024 * 8 * p.decode_tile_s / sms);
  CHECK(t.time_s > 4 * (tiny_bytes / bw + p.floor_s) - 3 * p.floor_s);
  CHECK(rf.attention_decode(dec, 0, 0) == Metrics{});
  CHECK_THROWS_AS(rf.attention_decode({1, 1, 1, 0, 8, 128, 128, Dtype::bf16}, 1, 1), InputError);
}

TEST_CASE("all-reduce: the faster of NCCL and the custom all-reduce inside its range") {
  const auto rf = roofline("h100_sxm");
  const auto& c = rf.params().custom_all_reduce;
  for (double bytes : {4096.0, 1.0 * MiB, c.max_bytes}) {
    const double nccl = rf.nccl_all_reduce_s(bytes, 8), custom = rf.custom_all_reduce_s(bytes, 8);
    CHECK(rf.collective(CollectiveKind::all_reduce, bytes, 8).time_s == std::min(nccl, custom));
  }
  // Past its buffer or its GPU count the custom path does not exist.
  CHECK(std::isinf(rf.custom_all_reduce_s(2 * c.max_bytes, 8)));
  CHECK(std::isinf(rf.custom_all_reduce_s(MiB, 16)));
  CHECK(rf.collective(CollectiveKind::all_reduce, 2 * c.max_bytes, 8).time_s ==
        rf.nccl_all_reduce_s(2 * c.max_bytes, 8));
  // all_gather never takes it.
  CHECK(rf.collective(CollectiveKind::all_gather, MiB, 8).time_s ==
        doctest::Approx(rf.params().collective.alpha_s + rf.params().collective.alpha_per_log2_s * 3 +
                        0.875 * MiB / (450e9 * rf.params().collective.eff_max *
                                       -std::expm1(-0.875 * MiB / rf.params().collective.sat_bytes))));
}

TEST_CASE("collectives: bus factors, fabric choice, latency floor") {
  const auto rf = roofline("h200_sxm");
  CHECK(bus_factor(CollectiveKind::all_reduce, 8) == doctest::Approx(1.75));
  CHECK(bus_factor(CollectiveKind::all_gather, 8) == doctest::Approx(0.875));
  CHECK(bus_factor(CollectiveKind::reduce_scatter, 4) == doctest::Approx(0.75));
  CHECK(bus_factor(CollectiveKind::all_to_all, 2) == doctest::Approx(0.5));
  // Tiny messages sit on the α floor, which grows with n.
  const double t2 = rf.collective(CollectiveKind::all_reduce, 2048, 2).time_s;
  const double t8 = rf.collective(CollectiveKind::all_reduce, 2048, 8).time_s;
  CHECK(t8 > t2);
  CHECK(t8 < 40e-6);
  // all_gather moves half the bus bytes of an all_reduce.
  CHECK(rf.collective(CollectiveKind::all_gather, 256 * MiB, 8).time_s <
        0.6 * rf.collective(CollectiveKind::all_reduce, 256 * MiB, 8).time_s);
  // 16 GPUs span 2 nodes: NCCL's rings leave each node through all 8 NICs at once, so a ring
  // collective moves at min(NVLink 450, 8 x NIC 50) = 400 GB/s, a little slower than in one
  // node, not at one NIC's 50; an all-to-all sends each GPU's off-node half through its own
  // NIC (the in-node part crosses NVLink meanwhile).
  const double ar8 = rf.collective(CollectiveKind::all_reduce, 256 * MiB, 8).time_s;
  const double ar16 = rf.collective(CollectiveKind::all_reduce, 256 * MiB, 16).time_s;
  CHECK(ar16 > ar8);
  CHECK(ar16 < 1.5 * ar8);
  CHECK(rf.collective_lower_bound_s(CollectiveKind::all_reduce, 32 * MiB, 16) ==
        doctest::Approx(1.875 * 32 * MiB / 400e9));
  CHECK(rf.collective_lower_bound_s(CollectiveKind::all_gather, 32 * MiB, 32) ==
        doctest::Approx(31.0 / 32 * 32 * MiB / 400e9));
  CHECK(rf.collective_lower_bound_s(CollectiveKind::all_to_all, 32 * MiB, 16) ==
        doctest::Approx(8.0 / 16 * 32 * MiB / 50e9));
  CHECK(rf.collective_lower_bound_s(CollectiveKind::all_to_all, 32 * MiB, 64) ==
        doctest::Approx(56.0 / 64 * 32 * MiB / 50e9));
  CHECK(rf.collective(CollectiveKind::all_reduce, 32 * MiB, 1) == Metrics{});
  // p2p across nodes: bytes / inter_node_bw + latency, with efficiency.
  const auto p = rf.p2p(64 * MiB, Link::inter_node);
  CHECK(p.time_s > 64 * MiB / 50e9 + 10e-6);
  CHECK(p.time_s < 64 * MiB / (0.6 * 50e9) + 30e-6);
  CHECK(rf.collective(CollectiveKind::p2p, 64 * MiB, 16).time_s == p.time_s);
  CHECK(rf.collective(CollectiveKind::p2p, 64 * MiB, 2).time_s == rf.p2p(64 * MiB, Link::intra_node).time_s);
  CHECK(rf.collective_lower_bound_s(CollectiveKind::all_reduce, 32 * MiB, 8) ==
        doctest::Approx(1.75 * 32 * MiB / 450e9));
  CHECK_THROWS_AS(rf.collective(CollectiveKind::all_reduce, 1, 0), InputError);
}

TEST_CASE("energy = time x board power x (idle + (1 - idle) x activity)") {
  const auto rf = roofline("h200_sxm");
  const auto big = rf.gemm(8192, 8192, 8192, Dtype::bf16, Dtype::bf16, Dtype::bf16);
  const double activity = big.flops / (989e12 * big.time_s);
  const double idle = rf.params().energy.idle_power_fraction;
  CHECK(big.energy_j == doctest::Approx(big.time_s * 700 * (idle + (1 - idle) * activity)));
  CHECK(big.energy_j < big.time_s * 700);
  const auto tiny = rf.memory_bound(0, 1024);
  CHECK(tiny.energy_j >= tiny.time_s * 700 * idle);
}

TEST_CASE("strict roofline.json loading") {
  std::ifstream in(default_data_dir() / "roofline.json");
  const std::string good((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK_NOTHROW(parse_roofline_params(good));
  const auto err = [](const std::string& text) {
    try {
      parse_roofline_params(text, "bad.json");
    } catch (const DataError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  auto missing = good;
  missing.replace(missing.find("\"overlap_p\""), std::string("\"overlap_p\"").size(), "\"overlap_q\"");
  CHECK(err(missing).find("gemm.overlap_p") != std::string::npos);
  auto wrong = good;
  const auto pos = wrong.find("\"idle_power_fraction\": ") + std::string("\"idle_power_fraction\": ").size();
  wrong.replace(pos, 3, "\"x\"");
  CHECK(err(wrong).find("energy.idle_power_fraction") != std::string::npos);
  auto over = good;
  const auto e = over.find("\"eff_max\": 0.8");
  over.replace(e, std::string("\"eff_max\": 0.8").size(), "\"eff_max\": 1.8");
  CHECK(err(over).find("eff_max") != std::string::npos);
  CHECK(err("[1]").find("bad.json") != std::string::npos);
  CHECK_THROWS_AS(load_roofline_params("/nonexistent/roofline.json"), DataError);
  // mxfp4 may be left out (files from before it existed): it runs at fp4's efficiency.
  auto no_mxfp4 = good;
  no_mxfp4.replace(no_mxfp4.find("\"fp4\": "), 0, "\"mxfp4\": 0.25, ");
  CHECK(parse_roofline_params(no_mxfp4).gemm.eff_compute[static_cast<std::size_t>(Dtype::mxfp4)] == 0.25);
  CHECK(parse_roofline_params(good).gemm.eff_compute[static_cast<std::size_t>(Dtype::mxfp4)] ==
        parse_roofline_params(good).gemm.eff_compute[static_cast<std::size_t>(Dtype::fp4)]);
}

TEST_CASE("the parameter field table reaches every number of RooflineParams, each by one path") {
  // The loader and the partial sets both write through detail::roofline_param_fields(): a
  // path wired to the wrong member would leave its own member at the default unnoticed.
  // Give every path a different value; every double of RooflineParams must then hold one.
  static_assert(sizeof(RooflineParams) % sizeof(double) == 0);
  constexpr std::size_t slots = sizeof(RooflineParams) / sizeof(double);
  const auto& fields = detail::roofline_param_fields();
  CHECK(fields.size() == slots);
  nlohmann::json patch = nlohmann::json::object();
  std::vector<double> given;
  for (std::size_t i = 0; i < fields.size(); ++i) {
    const double v = (fields[i].rule == detail::ParamRule::exponent ? 1.0 : 0.0) + 0.001 * double(i + 1);
    nlohmann::json* at = &patch;
    std::string path = fields[i].path;
    for (std::size_t dot = path.find('.'); dot != std::string::npos; dot = path.find('.')) {
      at = &(*at)[path.substr(0, dot)];
      path = path.substr(dot + 1);
    }
    (*at)[path] = v;
    given.push_back(v);
  }
  const RooflineParams p = apply_roofline_params_patch(RooflineParams{}, patch.dump());
  std::array<double, slots> held{};
  std::memcpy(held.data(), &p, sizeof(p));
  std::sort(held.begin(), held.end());
  std::sort(given.begin(), given.end());
  CHECK(std::vector<double>(held.begin(), held.end()) == given);
}

TEST_CASE("partial parameter sets (apply_roofline_params_patch): what the fitter sends costdsl roofline serve") {
  const RooflineParams base;
  const auto idx = [](Dtype d) { return static_cast<std::size_t>(d); };
  // Nothing given: the base, field for field (every number of the committed file, re-read).
  std::ifstream in(default_data_dir() / "roofline.json");
  const std::string good((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const RooflineParams none = apply_roofline_params_patch(base, "{}");
  const RooflineParams all = apply_roofline_params_patch(RooflineParams{}, "{" + good.substr(good.find("\"gemm\"")));
  for (const RooflineParams* p : {&none, &all}) {
    CHECK(p->gemm.k_overhead == base.gemm.k_overhead);
    CHECK(p->attention.decode_tile_s == base.attention.decode_tile_s);
    CHECK(p->p2p_inter_node.sat_bytes == base.p2p_inter_node.sat_bytes);
    CHECK(p->elementwise[3].floor_s == base.elementwise[3].floor_s);
  }
  // Each given number lands in its own field and nowhere else.
  const RooflineParams p = apply_roofline_params_patch(
      base, R"({"gemm": {"eff_compute": {"bf16": 0.5}, "memory": {"sat_bytes": 123}},
                "elementwise": {"rope": {"floor_s": 0}}, "p2p": {"intra_node": {"alpha_s": 2e-6}}})");
  CHECK(p.gemm.eff_compute[idx(Dtype::bf16)] == 0.5);
  CHECK(p.gemm.eff_compute[idx(Dtype::fp16)] == base.gemm.eff_compute[idx(Dtype::fp16)]);
  CHECK(p.gemm.memory.sat_bytes == 123);
  CHECK(p.gemm.memory.eff_max == base.gemm.memory.eff_max);
  CHECK(p.elementwise[static_cast<std::size_t>(ElementwiseKind::rope)].floor_s == 0);
  CHECK(p.elementwise[static_cast<std::size_t>(ElementwiseKind::norm)].floor_s ==
        base.elementwise[static_cast<std::size_t>(ElementwiseKind::norm)].floor_s);
  CHECK(p.p2p_intra_node.alpha_s == 2e-6);
  CHECK(p.p2p_inter_node.alpha_s == base.p2p_inter_node.alpha_s);
  // ...and the roofline runs on it: a compute-bound GEMM at half the bf16 efficiency.
  const GpuSpec& h100 = catalog().find("h100_sxm");
  const double t0 = Roofline(h100, base).gemm(8192, 8192, 8192, Dtype::bf16, Dtype::bf16, Dtype::bf16).time_s;
  const double t1 = Roofline(h100, p).gemm(8192, 8192, 8192, Dtype::bf16, Dtype::bf16, Dtype::bf16).time_s;
  CHECK(t1 / t0 > 1.6);
  // As in a file, mxfp4 follows fp4 unless it is given itself.
  const RooflineParams fp4 = apply_roofline_params_patch(base, R"({"gemm": {"eff_compute": {"fp4": 0.3}}})");
  CHECK(fp4.gemm.eff_compute[idx(Dtype::mxfp4)] == 0.3);
  const RooflineParams both =
      apply_roofline_params_patch(base, R"({"gemm": {"eff_compute": {"fp4": 0.3, "mxfp4": 0.7}}})");
  CHECK(both.gemm.eff_compute[idx(Dtype::mxfp4)] == 0.7);
}
