// L1 DeepSeek sparse attention kernels: dsa_indexer_logits, dsa_topk, dsa_sparse_mla. Work
// formulas against hand arithmetic, the zero-work leaf, the roofline (ANALYTIC, at or above
// the hardware bound), what grows with the context and what does not, and validation.
#include <doctest/doctest.h>

#include <cstdint>

#include "costdsl/concepts.hpp"
#include "costdsl/costdsl.hpp"
#include "costdsl/kernel.hpp"
#include "costdsl/kernels/dsa_indexer_logits.hpp"
#include "costdsl/kernels/dsa_sparse_mla.hpp"
#include "costdsl/kernels/dsa_topk.hpp"
#include "costdsl/timing.hpp"

#include "leaf_checks.hpp"

using namespace costdsl;
using namespace costdsl::kernels;

static_assert(KernelDef<DsaIndexerLogits> && SlotKernel<Kernel<DsaIndexerLogits>>);
static_assert(KernelDef<DsaTopk> && SlotKernel<Kernel<DsaTopk>>);
static_assert(KernelDef<DsaSparseMla> && SlotKernel<Kernel<DsaSparseMla>>);

namespace {
// GLM-5's indexer (32 heads of 128, top-2048) and its latent (512 + 64) at a 64-head launch.
const DsaIndexerLogits::Config logits{Dtype::fp8, 32, 128};
const DsaTopk::Config topk{2048};
const DsaSparseMla::Config sparse{Dtype::fp8, 64, 512, 64, 2048};
}  // namespace

TEST_CASE("dsa kinds: a launch's queries and causal keys") {
  // 2 sequences appending 3 queries after 10 cached tokens: each sees 11, 12, 13 keys.
  const kernels::detail::DsaLaunch in{2, 10, 3};
  CHECK(kernels::detail::dsa_queries(in) == 6);
  CHECK(kernels::detail::dsa_keys(in) == 2 * (11 + 12 + 13));
  CHECK(DsaIndexerLogits::flops(logits, in) == 72.0 * 32 * (2 * 128 + 3));
  // Decodes: one query per sequence over its whole context.
  CHECK(kernels::detail::dsa_keys({5, 4095, 1}) == 5 * 4096);
}

TEST_CASE("dsa_topk: only rows that see more than topk keys select; their keys are read passes times") {
  CHECK(DsaTopk::select_keys(topk, {4, 2047, 1}) == 0);  // 2048 keys: every one selected, nothing to choose
  CHECK(DsaTopk::select_keys(topk, {4, 2048, 1}) == 4 * 2049);
  // A fresh 2050-token chunk: rows 2049 and 2050 select.
  CHECK(DsaTopk::select_keys(topk, {1, 0, 2050}) == 2049 + 2050);
  // After 3000 cached tokens every row selects: keys as the launch's.
  CHECK(DsaTopk::select_keys(topk, {2, 3000, 7}) == kernels::detail::dsa_keys({2, 3000, 7}));
  CHECK(DsaTopk::bytes(topk, {1, 0, 2050}) == 4.0 * DsaTopk::passes * (2049 + 2050) + 8.0 * 2050 * 2048);
  const Metrics m = kernel_test::check_analytic<DsaTopk>(topk, {64, 8191, 1});
  CHECK(kernel_test::check_analytic<DsaTopk>(topk, {64, 65535, 1}).time_s > m.time_s);
  kernel_test::check_zero<DsaTopk>(topk, {0, 100, 1});
}

TEST_CASE("dsa_sparse_mla: topk slots per query whatever the context; dsa_indexer_logits grows with it") {
  // One decode: 2048 slots × 64 heads × (576 + 512) × 2 flops; the gathered fp8 latent rows
  // with their int32 indices, the bf16 q row (576) and latent o row (512) of each head.
  CHECK(DsaSparseMla::flops(sparse, {1, 99999, 1}) == 2.0 * 64 * 2048 * 1088);
  CHECK(DsaSparseMla::bytes(sparse, {1, 99999, 1}) == 2048.0 * (576 + 4) + 2.0 * 64 * 1088);
  const Metrics near = kernel_test::check_analytic<DsaSparseMla>(sparse, {32, 3000, 1});
  CHECK(kernel_test::check_analytic<DsaSparseMla>(sparse, {32, 300000, 1}) == near);
  CHECK(kernel_test::check_analytic<DsaSparseMla>(sparse, {32, 10, 1}) == near);  // masked slots cost as much
  kernel_test::check_zero<DsaSparseMla>(sparse, {0, 3000, 1});

  const Metrics short_ctx = kernel_test::check_analytic<DsaIndexerLogits>(logits, {32, 3000, 1});
  const Metrics long_ctx = kernel_test::check_analytic<DsaIndexerLogits>(logits, {32, 300000, 1});
  CHECK(long_ctx.time_s > 10 * short_ctx.time_s);
  kernel_test::check_analytic<DsaIndexerLogits>(logits, {2, 0, 4096});  // prefill's form
  kernel_test::check_zero<DsaIndexerLogits>(logits, {0, 3000, 1});
}

TEST_CASE("dsa kinds: configs name the field, its value and the rule") {
  CHECK_THROWS_WITH_AS(Kernel<DsaTopk>(kernel_test::roofline_h200(), {0}), "dsa_topk: topk 0 must be in 1..1048576",
                       ConfigError);
  CHECK_THROWS_WITH_AS(Kernel<DsaIndexerLogits>(kernel_test::roofline_h200(), {Dtype::fp8, 32, 0}),
                       "dsa_indexer_logits: head_dim 0 must be in 1..1024", ConfigError);
  CHECK_THROWS_WITH_AS(Kernel<DsaSparseMla>(kernel_test::roofline_h200(), {Dtype::fp8, 2048, 512, 64, 2048}),
                       "dsa_sparse_mla: num_heads 2048 must be in 1..1024", ConfigError);
}
