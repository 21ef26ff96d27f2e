#include <doctest/doctest.h>

#include <array>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include "costdsl/costdsl.hpp"
#include "costdsl/gpu_spec.hpp"
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
  for (std::size_t i = 0; i < 5; ++i) CHECK(loaded.gemm.eff_compute[i] == def.gemm.eff_compute[i]);
  CHECK(loaded.gemm.k_overhead == def.gemm.k_overhead);
  CHECK(loaded.gemm.overlap_p == def.gemm.overlap_p);
  CHECK(loaded.gemm.memory.eff_max == def.gemm.memory.eff_max);
  for (std::size_t i = 0; i < elementwise_kind_count; ++i) {
    CHECK(loaded.elementwise[i].eff_max == def.elementwise[i].eff_max);
    CHECK(loaded.elementwise[i].sat_bytes == def.elementwise[i].sat_bytes);
    CHECK(loaded.elementwise[i].floor_s == def.elementwise[i].floor_s);
  }
  CHECK(loaded.collective.alpha_s == def.collective.alpha_s);
  CHECK(loaded.collective.sat_bytes == def.collective.sat_bytes);
  CHECK(loaded.p2p_inter_node.alpha_s == def.p2p_inter_node.alpha_s);
  CHECK(loaded.p2p_intra_node.eff_max == def.p2p_intra_node.eff_max);
}

TEST_CASE("H200 sanity figures (reference §9)") {
  const auto rf = roofline("H200");
  // bf16 4096^3 GEMM reaches ~80% of the 989 TFLOP/s peak: 0.17-0.18 ms.
  const auto big = rf.gemm(4096, 4096, 4096, Dtype::bf16, Dtype::bf16, Dtype::bf16);
  CHECK(big.time_ms() > 0.165);
  CHECK(big.time_ms() < 0.185);
  CHECK(big.flops == doctest::Approx(2.0 * 4096 * 4096 * 4096));
  CHECK(big.bytes == doctest::Approx(3.0 * 2 * 4096 * 4096));
  CHECK(big.coverage == Coverage::analytic);
  // m = 1 decode GEMV: the 128 MiB weight read at ~81% of 4.8 TB/s: ~0.035 ms.
  const auto gemv = rf.gemm(1, 8192, 8192, Dtype::bf16, Dtype::bf16, Dtype::bf16);
  CHECK(gemv.time_ms() > 0.030);
  CHECK(gemv.time_ms() < 0.040);
  // 8-GPU NCCL all-reduce of 32 MiB: ~300 GB/s bus bandwidth: ~0.2 ms.
  const auto ar = rf.collective(CollectiveKind::all_reduce, 32 * MiB, 8);
  CHECK(ar.time_ms() > 0.18);
  CHECK(ar.time_ms() < 0.22);
  CHECK(ar.bytes == doctest::Approx(1.75 * 32 * MiB));
}

TEST_CASE("C++ matches the calibration script's printed spot values") {
  // From `python3 scripts/calibrate_roofline.py` (spot checks, ms).
  struct Spot { const char* gpu; double m, n, k, ms; };
  for (const Spot& s : std::array<Spot, 6>{{{"h100_sxm", 4096, 4096, 4096, 0.172324},
                                            {"h200_sxm", 4096, 4096, 4096, 0.171235},
                                            {"h100_sxm", 1, 8192, 8192, 0.052124},
                                            {"h200_sxm", 1, 8192, 8192, 0.037789},
                                            {"h100_sxm", 16, 4096, 14336, 0.046171},
                                            {"h200_sxm", 2048, 28672, 8192, 1.163166}}}) {
    const auto t = roofline(s.gpu).gemm(s.m, s.n, s.k, Dtype::bf16, Dtype::bf16, Dtype::bf16).time_ms();
    CHECK_MESSAGE(t == doctest::Approx(s.ms).epsilon(1e-5), s.gpu, " m=", s.m, " n=", s.n, " k=", s.k);
  }
  CHECK(roofline("h200_sxm").collective(CollectiveKind::all_reduce, 33554432, 8).time_ms() ==
        doctest::Approx(0.201970).epsilon(1e-5));
  CHECK(roofline("h100_sxm").memory_bound(0, 2.0 * 4096 * 8192 * 2 + 8192 * 2, ElementwiseKind::norm).time_ms() ==
        doctest::Approx(0.105781).epsilon(1e-5));
  CHECK(roofline("h100_sxm").p2p(16 * MiB, Link::inter_node).time_ms() == doctest::Approx(0.487472).epsilon(1e-5));
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

TEST_CASE("attention: prefill compute-bound, decode memory-bound") {
  const auto rf = roofline("h200_sxm");
  const auto& p = rf.params().attention;
  const double pf_flops = 4.0 * 4096 * 4096 * 128 * 32;  // big causal-ish prefill
  const auto pf = rf.attention_prefill(pf_flops, 64 * MiB, Dtype::bf16);
  CHECK(pf.time_s == doctest::Approx(pf_flops / (989e12 * p.eff_compute_prefill) + p.floor_s));
  const double kv = 2.0 * 8 * 128 * 2 * 32 * 8192 * 64;  // 64 requests x 8k tokens of Llama-3-8B KV
  const auto dec = rf.attention_decode(kv / 2, kv, Dtype::bf16);
  CHECK(dec.time_s > kv / rf.gpu().hbm_bandwidth);
  CHECK(dec.time_s == doctest::Approx(kv / (rf.gpu().hbm_bandwidth * p.eff_mem_decode) + p.floor_s).epsilon(1e-3));
  CHECK(rf.attention_decode(0, 0, Dtype::bf16) == Metrics{});
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
  // 16 GPUs leave the node: network bandwidth, an order of magnitude slower.
  CHECK(rf.collective(CollectiveKind::all_reduce, 256 * MiB, 16).time_s >
        5 * rf.collective(CollectiveKind::all_reduce, 256 * MiB, 8).time_s);
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
}
