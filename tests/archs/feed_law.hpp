#pragma once
// A law every DP-attention arch keeps (issue 7), written once: inputs(it, scratch) and a
// BatchFeed give bitwise what the self-contained inputs(it) gives, one scratch may serve
// one arch after another, and once warm a dealt iteration allocates nothing; a Reevaluator
// (what serve::ArchModel evaluates through) gives evaluate()'s totals over a decode stretch,
// the prefill coming and going, and a repeat; repeated slots answering once change nothing;
// a decode's rows (decode_rows: a speculative step's verified tokens) are that decode listed
// as often in its own group.
#include <doctest/doctest.h>

#include <array>
#include <cstdint>
#include <span>
#include <type_traits>
#include <vector>

#include "costdsl/archs/support/batch_feed.hpp"
#include "costdsl/costdsl.hpp"

#include "../core/alloc_counter.hpp"

namespace arch_test {

// Repeated slots answering once (detail/shared_slots.hpp) change nothing: evaluate()'s
// total, row and balanced total are those of the fold that evaluates every leaf.
template <class Tree, class Ins>
void check_shared_slots_law(const Tree& tree, const Ins& in) {
  using namespace costdsl;
  std::array<Metrics, n_slots<Tree>> shared{}, every{};
  const Metrics total = evaluate(tree, in, shared);
  const Metrics each = detail::eval_node<0, 0, detail::Pass::row, Quantities::time_and_work>(tree, in, every.data());
  CHECK(total == each);
  for (std::size_t i = 0; i < shared.size(); ++i) {
    CAPTURE(slot_paths<Tree>[i]);
    CHECK(shared[i] == every[i]);
  }
  CHECK(evaluate_balanced(tree, in) == detail::eval_node<0, 0, detail::Pass::balanced, Quantities::time_and_work>(
                                           tree, in, nullptr));
}

// A batch whose decodes run `rows` rows each, dealt, against the same deal with every
// group's decodes listed `rows` times (one row each): bitwise the same iteration, and each
// group keeps its requests' rows.
template <class A>
void check_decode_rows_law(const A& arch, const costdsl::Timing& t, const costdsl::ops::AttentionBatch& batch,
                           costdsl::ops::moe::Routing routing, std::uint32_t rows) {
  using namespace costdsl;
  using namespace costdsl::archs;
  const auto tree = arch.build(t);
  const std::uint64_t dp = arch.resolved().dp;
  DpDeal dealt;
  const MoeIteration it = dealt.deal({batch.prefill, batch.decode_kv, rows}, dp, routing);
  std::vector<std::vector<std::uint32_t>> lists(it.groups.size());
  std::vector<ops::AttentionBatch> groups(it.groups.size());
  std::size_t decodes = 0;
  for (std::size_t g = 0; g < it.groups.size(); ++g) {
    CHECK(it.groups[g].decode_rows == rows);
    for (const std::uint32_t kv : it.groups[g].decode_kv) lists[g].insert(lists[g].end(), rows, kv);
    groups[g] = {it.groups[g].prefill, lists[g]};
    decodes += it.groups[g].decode_kv.size();
  }
  CHECK(decodes == batch.decode_kv.size());  // requests, not rows, are dealt
  const Metrics total = evaluate(tree, arch.inputs(it));
  CHECK(total == evaluate(tree, arch.inputs(MoeIteration{groups, routing})));
  DpDeal plain;  // one row a decode: a shorter iteration (the rows are not ignored)
  if (!batch.decode_kv.empty()) CHECK(total.time_s > evaluate(tree, arch.inputs(plain.deal(batch, dp, routing))).time_s);
}

// s and r: a static and a run-time form (any two DP archs). Returns their totals.
template <class S, class R>
std::array<costdsl::Metrics, 2> check_feed_law(const S& s, const R& r, const costdsl::Timing& t,
                                               const costdsl::ops::AttentionBatch& batch,
                                               costdsl::ops::moe::Routing routing) {
  using namespace costdsl;
  using namespace costdsl::archs;
  const auto st = s.build(t);
  const auto rt = r.build(t);
  DpDeal deal;
  const Metrics owned_s = evaluate(st, s.inputs(deal.deal(batch, s.resolved().dp, routing)));
  const Metrics owned_r = evaluate(rt, r.inputs(deal.deal(batch, r.resolved().dp, routing)));
  InputScratch scratch;
  CHECK(evaluate(st, s.inputs(deal.deal(batch, s.resolved().dp, routing), scratch)) == owned_s);
  CHECK(evaluate(rt, r.inputs(deal.deal(batch, r.resolved().dp, routing), scratch)) == owned_r);  // scratch changes arch
  BatchFeed fs, fr;  // one per arch: each keeps its own buffers warm
  std::array<Metrics, n_slots<decltype(rt)>> row{};
  CHECK(evaluate(st, fs(s, batch, routing)) == owned_s);
  CHECK(evaluate(rt, fr(r, batch, routing), row) == owned_r);
  check_shared_slots_law(st, fs(s, batch, routing));
  check_shared_slots_law(rt, fr(r, batch, routing));
  Metrics total_s{}, total_r{};
  const long before = costdsl::testing::allocation_count();
  for (int i = 0; i < 100; ++i) {
    total_s = evaluate(st, fs(s, batch, routing));
    total_r = evaluate(rt, fr(r, batch, routing), row);
  }
  CHECK(costdsl::testing::allocation_count() == before);
  CHECK(total_s == owned_s);
  CHECK(total_r == owned_r);

  Reevaluator<std::remove_const_t<decltype(st)>, decltype(fs(s, batch, routing))> again_s;
  Reevaluator<std::remove_const_t<decltype(rt)>, decltype(fr(r, batch, routing))> again_r;
  BatchFeed plain_s, plain_r;
  std::vector<std::uint32_t> kv(batch.decode_kv.begin(), batch.decode_kv.end());
  for (int step = 0; step < 8; ++step) {
    CAPTURE(step);
    const bool prefill = step % 4 != 1 && step != 2;  // on, off, off, on, ... and step 3 repeats step 0's chunks
    const ops::AttentionBatch b{prefill ? batch.prefill : std::span<const ops::PrefillChunk>{}, kv};
    CHECK(again_s(st, fs(s, b, routing)) == evaluate(st, plain_s(s, b, routing)));
    CHECK(again_r(rt, fr(r, b, routing)) == evaluate(rt, plain_r(r, b, routing)));
    if (step % 2 == 1)
      for (std::uint32_t& x : kv) ++x;  // a decode stretch: every KV one longer
  }
  check_decode_rows_law(s, t, batch, routing, 3);
  check_decode_rows_law(r, t, batch, routing, 3);
  return {owned_s, owned_r};
}

}  // namespace arch_test
