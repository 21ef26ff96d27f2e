// leaf/*: one table lookup alone, and the lookups one Llama-3-70B iteration makes: the
// floor under iteration/llama3_70b/static (everything above it is work formulas, the
// best-backend pick, the energy estimate and the fold).
//   leaf/interp1d                 one query of a GEMM-shaped table (79-point token axis)
//   leaf/interp2d                 one query of a decode-shaped table (batch x total KV, log axes)
//   leaf/llama3_70b_lookups       14 such 1D queries at the iteration's token count + 2 2D
// Queries cycle through 64 token counts / decode shapes, as consecutive iterations do.
#include <benchmark/benchmark.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <vector>

#include "costdsl/costdsl.hpp"
#include "costdsl/interp/interp1d.hpp"
#include "costdsl/interp/interp2d.hpp"
#include "costdsl/token_axis.hpp"

namespace {
using namespace costdsl;

interp::Interp1D gemm_table() {
  std::vector<double> m, ms;
  for (std::uint32_t v : gemm_m_axis()) {
    m.push_back(v);
    ms.push_back(0.012 + 4e-5 * v);  // a GEMM's time in ms: a floor, then linear in m
  }
  return interp::Interp1D(interp::Axis("m", m, interp::AxisScale::detect), ms);
}

// batch 1..256 and total KV 1..2^25 (powers of two); a cell with fewer KV tokens than
// requests is missing, as in the profiler's sweep.
interp::Interp2D decode_table() {
  std::vector<double> batch, kv, ms;
  std::vector<std::uint8_t> valid;
  for (double b = 1; b <= 256; b *= 2) batch.push_back(b);
  for (double t = 1; t <= 33554432; t *= 2) kv.push_back(t);
  for (double b : batch)
    for (double t : kv) {
      ms.push_back(0.006 + 1e-7 * t + 1e-4 * b);
      valid.push_back(t >= b ? 1 : 0);
    }
  return interp::Interp2D(interp::Axis("batch", batch, interp::AxisScale::log),
                          interp::Axis("total_kv", kv, interp::AxisScale::log), ms, valid,
                          interp::OffGrid::weighted);
}

// 64 iterations' shapes: token counts over the decode and prefill range, decode batches
// of 1..256 requests at ~1-4K KV each.
struct Shapes {
  std::array<double, 64> tokens{}, batch{}, total_kv{};
  Shapes() {
    std::uint64_t s = 12345;
    auto next = [&] { return (s = s * 6364136223846793005ull + 1442695040888963407ull) >> 33; };
    for (std::size_t i = 0; i < 64; ++i) {
      tokens[i] = double(1 + next() % 8192);
      batch[i] = double(1 + next() % 256);
      total_kv[i] = batch[i] * double(1024 + next() % 3072);
    }
  }
};
const Shapes shapes;

void interp1d(benchmark::State& state) {
  const interp::Interp1D t = gemm_table();
  std::size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(t.query(shapes.tokens[i++ & 63]));
  }
}
BENCHMARK(interp1d)->Name("leaf/interp1d");

void interp2d(benchmark::State& state) {
  const interp::Interp2D t = decode_table();
  std::size_t i = 0;
  for (auto _ : state) {
    const std::size_t k = i++ & 63;
    benchmark::DoNotOptimize(t.query(shapes.batch[k], shapes.total_kv[k]));
  }
}
BENCHMARK(interp2d)->Name("leaf/interp2d");

// Llama-3-70B's 16 leaves: 14 1D lookups (norms, GEMMs, rope, KV append, activation,
// all-reduces, embedding) at one token count and 2 2D ones (prefill, decode), each leaf
// with its own table (all 1D ones GEMM-shaped here: the norms' 63-point token axis and
// the all-reduces' byte axis search the same way).
void llama3_70b_lookups(benchmark::State& state) {
  std::vector<interp::Interp1D> one_d(14, gemm_table());
  std::vector<interp::Interp2D> two_d(2, decode_table());
  std::size_t i = 0;
  for (auto _ : state) {
    const std::size_t k = i++ & 63;
    double sum = 0;
    for (const interp::Interp1D& t : one_d) sum += t.query(shapes.tokens[k]).value;
    for (const interp::Interp2D& t : two_d) sum += t.query(shapes.batch[k], shapes.total_kv[k]).value;
    benchmark::DoNotOptimize(sum);
  }
}
BENCHMARK(llama3_70b_lookups)->Name("leaf/llama3_70b_lookups");

}  // namespace
