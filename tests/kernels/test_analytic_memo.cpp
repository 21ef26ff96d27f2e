// The analytic memo (detail/analytic_memo.hpp): a roofline leaf with one count input
// remembers its time by the count. It must be invisible in every result: bitwise the
// general path on the first call and on every later one, per leaf (never shared between
// configs), under threads, and off wherever a table answers or the timing says so.
#include <doctest/doctest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <string_view>
#include <thread>
#include <vector>

#include "costdsl/kernel.hpp"
#include "costdsl/kernels/attn_decode.hpp"
#include "costdsl/kernels/embedding.hpp"
#include "costdsl/kernels/fused_moe.hpp"
#include "costdsl/kernels/gemm.hpp"
#include "costdsl/kernels/grouped_gemm.hpp"
#include "costdsl/kernels/rms_norm.hpp"
#include "costdsl/kernels/sampler.hpp"
#include "costdsl/kernels/silu_and_mul.hpp"
#include "costdsl/load_timing.hpp"

using namespace costdsl;
using namespace costdsl::kernels;

namespace {

const Timing& roofline() {
  static const Timing t = load_timing("h200", TimingMode::roofline);
  return t;
}

// Bitwise, field by field (== would let 0.0 match -0.0).
bool same_bits(const Metrics& a, const Metrics& b) {
  return std::bit_cast<std::uint64_t>(a.time_s) == std::bit_cast<std::uint64_t>(b.time_s) &&
         std::bit_cast<std::uint64_t>(a.flops) == std::bit_cast<std::uint64_t>(b.flops) &&
         std::bit_cast<std::uint64_t>(a.bytes) == std::bit_cast<std::uint64_t>(b.bytes) &&
         std::bit_cast<std::uint64_t>(a.energy_j) == std::bit_cast<std::uint64_t>(b.energy_j) &&
         a.coverage == b.coverage && a.backend == b.backend;
}

// Counts on both sides of the capacity, each asked three times (a miss, then hits).
const std::vector<std::uint64_t> counts{0, 1, 2, 3, 63, 64, 65, 127, 128, 129, 1000, 4095, 4096, 8190, 8191, 8192,
                                        8193, 20000, 1u << 20};

// The input of count n: its first field, the others at their defaults (0).
template <class Input>
Input input_of_count(std::uint64_t n) {
  Input in{};
  bool first = true;
  for_each_field(in, [&](std::string_view, std::uint64_t& v) {
    if (first) v = n;
    first = false;
  });
  return in;
}

template <class K>
void answers_as_general_path(const typename K::Config& config) {
  const Kernel<K> memo(roofline(), config);
  const Kernel<K> plain(roofline().with_analytic_memo(0), config);
  REQUIRE(memo.memoised());
  REQUIRE_FALSE(plain.memoised());
  for (int round = 0; round < 3; ++round)
    for (const std::uint64_t n : counts) {
      const auto in = input_of_count<typename K::Input>(n);
      CAPTURE(n);
      CHECK(same_bits(memo.template eval<Quantities::time_and_work>(in),
                      plain.template eval<Quantities::time_and_work>(in)));
      // The energy pass never reads the memo.
      CHECK(same_bits(memo.template eval<Quantities::with_energy>(in),
                      plain.template eval<Quantities::with_energy>(in)));
    }
}

}  // namespace

static_assert(detail::count_input<Gemm::Input>);
static_assert(detail::count_input<RmsNorm::Input>);
static_assert(!detail::count_input<AttnDecode::Input>);  // two inputs: no memo
static_assert(!detail::memoisable<AttnDecode>);
static_assert(detail::memoisable<GroupedGemm>);  // a count, active_experts at its default
static_assert(detail::memoisable<FusedMoe>);

TEST_CASE("an analytic leaf's memo answers bitwise as the general path, on the first call and on every later one") {
  answers_as_general_path<Gemm>({Dtype::bf16, 6144, 4096});
  answers_as_general_path<Gemm>({Dtype::fp8, 4096, 14336});
  answers_as_general_path<RmsNorm>({Dtype::bf16, 4096});
  answers_as_general_path<SiluAndMul>({Dtype::bf16, 14336});
  answers_as_general_path<Embedding>({Dtype::bf16, 128256, 4096});
  answers_as_general_path<Sampler>({Dtype::bf16, 128256});
  answers_as_general_path<GroupedGemm>({Dtype::bf16, 128, 512, 128});  // MLA's absorbed BMM, even routing
}

TEST_CASE("a grouped GEMM with routed active experts takes the general path, beside the memo's counts") {
  const Kernel<GroupedGemm> memo(roofline(), {Dtype::fp8, 32, 7168, 2048});
  const Kernel<GroupedGemm> plain(roofline().with_analytic_memo(0), {Dtype::fp8, 32, 7168, 2048});
  REQUIRE(memo.memoised());
  for (int round = 0; round < 2; ++round)
    for (const std::uint64_t rows : {1u, 5u, 40u, 300u}) {
      const GroupedGemm::Input even{rows, 0}, routed{rows, std::min<std::uint64_t>(rows, 3)};
      CAPTURE(rows);
      CHECK(same_bits(memo.eval<Quantities::time_and_work>(routed), plain.eval<Quantities::time_and_work>(routed)));
      CHECK(same_bits(memo.eval<Quantities::time_and_work>(even), plain.eval<Quantities::time_and_work>(even)));
    }
  CHECK(GroupedGemm::memo_count({}, {12, 0}) == 12);
  CHECK(GroupedGemm::memo_count({}, {12, 5}) == detail::no_memo_count);
}

TEST_CASE("a fused MoE rank's (rows, active experts) is one count of the memo, bitwise the general path") {
  const FusedMoe::Config c{Dtype::fp8, 7168, 2048, 32, 8, Dtype::fp8, ExpertLoad::balanced};
  const Kernel<FusedMoe> memo(roofline(), c);
  const Kernel<FusedMoe> plain(roofline().with_analytic_memo(0), c);
  REQUIRE(memo.memoised());
  for (int round = 0; round < 2; ++round)
    for (const std::uint64_t rows : {0u, 1u, 7u, 33u, 200u, 247u, 248u, 5000u})
      for (const std::uint64_t active : {0u, 1u, 5u, 32u}) {
        if (active > std::min<std::uint64_t>(rows, 32)) continue;
        CAPTURE(rows);
        CAPTURE(active);
        const FusedMoe::Input in{rows, active};
        CHECK(same_bits(memo.eval<Quantities::time_and_work>(in), plain.eval<Quantities::time_and_work>(in)));
      }
  // Distinct inputs, distinct counts: active experts fill the gap between rows' counts.
  CHECK(FusedMoe::memo_count(c, {3, 32}) + 1 == FusedMoe::memo_count(c, {4, 0}));
}

TEST_CASE("each leaf keeps its own memo: two GEMM configs asked alternately at one m") {
  const Kernel<Gemm> qkv(roofline(), {Dtype::bf16, 6144, 4096});
  const Kernel<Gemm> down(roofline(), {Dtype::bf16, 4096, 14336});
  const Kernel<Gemm> qkv_plain(roofline().with_analytic_memo(0), {Dtype::bf16, 6144, 4096});
  const Kernel<Gemm> down_plain(roofline().with_analytic_memo(0), {Dtype::bf16, 4096, 14336});
  for (int round = 0; round < 2; ++round)
    for (std::uint64_t m = 1; m < 300; m += 7) {
      const Metrics a = qkv.eval<Quantities::time_and_work>({m}), b = down.eval<Quantities::time_and_work>({m});
      CHECK(same_bits(a, qkv_plain.eval<Quantities::time_and_work>({m})));
      CHECK(same_bits(b, down_plain.eval<Quantities::time_and_work>({m})));
      CHECK(a.time_s != b.time_s);
    }
  // A copy of a leaf shares its memo (same config, same answers).
  const Kernel<Gemm> copy = qkv;
  CHECK(same_bits(copy.eval<Quantities::time_and_work>({77}), qkv_plain.eval<Quantities::time_and_work>({77})));
}

TEST_CASE("the memo is off where it could change an answer or cannot help") {
  CHECK_FALSE(Kernel<Gemm>(load_timing("h200", TimingMode::profile), {Dtype::bf16, 6144, 4096}).memoised());
  CHECK_FALSE(Kernel<AttnDecode>(roofline(), {Dtype::bf16, 32, 8, 128}).memoised());
  CHECK_FALSE(Kernel<Gemm>(roofline().with_analytic_memo(0), {Dtype::bf16, 6144, 4096}).memoised());
  CHECK(roofline().analytic_memo() == Timing::default_analytic_memo);
  CHECK(roofline().with_analytic_memo(16).analytic_memo() == 16);
}

TEST_CASE("threads evaluating one leaf share its memo and each gets the general path's answer") {
  const Kernel<Gemm> shared(roofline(), {Dtype::bf16, 4096, 4096});
  const Kernel<Gemm> plain(roofline().with_analytic_memo(0), {Dtype::bf16, 4096, 4096});
  std::vector<Metrics> want(3000);
  for (std::uint64_t m = 0; m < want.size(); ++m) want[m] = plain.eval<Quantities::time_and_work>({m});
  std::vector<int> wrong(4, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int round = 0; round < 3; ++round)
        for (std::uint64_t i = 0; i < want.size(); ++i) {
          const std::uint64_t m = (i * (2 * t + 1) + 17 * round) % want.size();  // each thread its own order
          if (!same_bits(shared.eval<Quantities::time_and_work>({m}), want[m])) ++wrong[t];
        }
    });
  for (std::thread& th : threads) th.join();
  CHECK(wrong == std::vector<int>(4, 0));
}
