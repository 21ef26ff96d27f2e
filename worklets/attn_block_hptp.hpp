#pragma once
// L3 attn_block_hptp: KV-parallel attention (Helix, Bhatia et al. arXiv 2507.07120; vLLM
// decode context parallelism) on N = hp × tp GPUs, ending at the all-reduce over N.
// Heads are split tp ways and replicated over the hp ranks; every request's KV is split
// hp ways, so each GPU attends over its own slice and the partial outputs are made exact
// by an all-to-all and a log-sum-exp merge:
//   input_norm → qkv_proj → [q_norm, k_norm] → rope → (kv_cache_append, prefill, decode)
//   → hp_all_to_all (hp > 1) → hp_combine (hp > 1) → o_proj (row-parallel over N)
//   → tp_allreduce (N > 1)
// At hp = 1 this is attn_block_tp leaf for leaf, number for number (static hp: the same
// slots; run-time hp: the two hp slots push zero). With tp = 1 it is the `hp` grain
// (KV split alone), which needs no worklet of its own.
//
// KV placement, as TensorRT-LLM's helix does it: each request's KV is cut into blocks of
// kv_block_tokens, dealt round-robin over the hp ranks from rank 0, and a new token's K
// and V are written only by the rank that owns its block. kv_cache_append and decode are
// each ONE slot that runs every hp rank's launch and folds them with the Max algebra (time
// = slowest rank, its gap the slice imbalance; work sums): ranks never get slots (INV-1).
// Given storage (Input::loads: an arch's inputs(it, scratch)), inputs() deals the batch
// over the ranks once per iteration and both slots read those loads; without, each slot
// deals it itself.
//
// hp is a decode-side degree wherever it ships: vLLM's decode context parallelism and
// TensorRT-LLM's helix take the KV from a prefill server, so an hp > 1 iteration rejects
// prefill chunks (InputError) rather than model a prefill no framework runs.
#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "costdsl/concepts.hpp"
#include "costdsl/detail/str.hpp"
#include "costdsl/dim_expr.hpp"
#include "costdsl/dtype.hpp"
#include "costdsl/error.hpp"
#include "costdsl/fixed_string.hpp"
#include "costdsl/form.hpp"
#include "costdsl/inputs.hpp"
#include "costdsl/kernel.hpp"
#include "costdsl/kernels/all_reduce.hpp"
#include "costdsl/kernels/all_to_all.hpp"
#include "costdsl/kernels/attn_decode.hpp"
#include "costdsl/kernels/attn_prefill.hpp"
#include "costdsl/kernels/gemm.hpp"
#include "costdsl/kernels/kv_cache_append.hpp"
#include "costdsl/kernels/merge_attn_states.hpp"
#include "costdsl/labeled.hpp"
#include "costdsl/leaf.hpp"
#include "costdsl/metrics.hpp"
#include "costdsl/ops/attention/attention.hpp"
#include "costdsl/quantities.hpp"
#include "costdsl/resolved.hpp"
#include "costdsl/static_value.hpp"
#include "costdsl/sum.hpp"
#include "costdsl/timing.hpp"
#include "costdsl/when.hpp"
#include "costdsl/worklets/detail/attn_body.hpp"
#include "costdsl/worklets/detail/weight_dtype.hpp"
#include "costdsl/worklets/detail/label.hpp"

namespace costdsl::worklets {

// The decode batch as the hp ranks hold it.
struct KvSlices {
  // TensorRT-LLM's default tokens_per_block: the unit of the round-robin deal.
  static constexpr std::uint32_t kv_block_tokens = 32;
  // The most GPUs one request's KV is split over (bounds the per-rank arrays of a deal).
  static constexpr std::uint32_t max_hp = 1024;

  // One rank's share of the iteration: the new tokens it writes, the decodes it attends
  // for (a rank holding none of a request's KV skips it) and the KV tokens it reads.
  // No member initializers: deal() writes the first hp of an uninitialised array of
  // max_hp, and zeroing all of it (24 KB) would cost more than the deal.
  struct RankLoad {
    std::uint64_t rows, batch, kv;
  };

  std::span<const std::uint32_t> decode_kv;  // each decode's KV length (its own token included)
  std::uint64_t prefill_tokens = 0;          // appended by rank 0 (only at hp = 1: see above)
  std::uint32_t hp = 1;
  // Every rank's load (hp of them), dealt once ahead (dealt_into) for all the slots that
  // read this batch; null: each rank-folded slot deals the batch itself. A pointer, not a
  // span: the slot inputs are copied through every nested input list.
  const RankLoad* dealt = nullptr;

  // The tokens of a `len`-token KV that rank `rank` holds: its share of the whole blocks,
  // plus the partial last block if it is the block's owner.
  static constexpr std::uint64_t slice(std::uint32_t len, std::uint32_t rank, std::uint32_t hp) noexcept {
    const std::uint32_t blocks = len / kv_block_tokens, rest = len % kv_block_tokens;
    std::uint64_t mine = std::uint64_t{blocks / hp + (rank < blocks % hp ? 1u : 0u)} * kv_block_tokens;
    if (blocks % hp == rank) mine += rest;
    return mine;
  }
  // The rank that writes a decode's new token (position len − 1).
  static constexpr std::uint32_t owner(std::uint32_t len, std::uint32_t hp) noexcept {
    return ((len - 1) / kv_block_tokens) % hp;
  }

  // Every rank's load in one pass over the decodes, O(decodes + hp): a request's whole
  // rounds of blocks reach every rank, its leftover whole blocks ranks [0, r) (a range,
  // kept as a difference array), its partial block rank r alone. out[0, hp) is written
  // (out holds at least hp): the rows (Rows) and the reads (Reads), each slot asking only
  // for what it launches.
  template <bool Rows = true, bool Reads = true>
  void deal(std::span<RankLoad> out) const noexcept {
    if (hp <= small_hp && (hp & (hp - 1)) == 0) {
      deal_small<Rows, Reads>(out);
      return;
    }
    struct Step {
      std::uint64_t batch, kv;
    };
    // Ranks [0, r) gain a block: every request adds to rank 0's running value (held in a
    // register, `lead`) and takes it back at rank r (diff[r], in memory).
    std::array<Step, max_hp + 1> diff;  // at rank r ≥ 1: what ranks ≥ r lose against ranks < r
    for (std::uint32_t r = 0; r <= hp; ++r) diff[r] = {0, 0};
    for (std::uint32_t r = 0; r < hp; ++r) out[r] = {0, 0, 0};
    out[0].rows = prefill_tokens;
    Step everyone{0, 0}, lead{0, 0};
    // hp is nearly always a power of two: divide by a shift and a mask then.
    const bool pow2 = (hp & (hp - 1)) == 0;
    const auto shift = static_cast<std::uint32_t>(std::countr_zero(hp));
    const auto quotient = [&](std::uint32_t x) { return pow2 ? x >> shift : x / hp; };
    const auto remainder = [&](std::uint32_t x) { return pow2 ? x & (hp - 1) : x % hp; };
    for (const std::uint32_t len : decode_kv) {
      if (len == 0) continue;
      if constexpr (Rows) ++out[remainder((len - 1) / kv_block_tokens)].rows;  // owner(len, hp)
      if constexpr (Reads) {
        const std::uint32_t blocks = len / kv_block_tokens, rest = len % kv_block_tokens;
        const std::uint32_t rounds = quotient(blocks), r = remainder(blocks);
        everyone.kv += std::uint64_t{rounds} * kv_block_tokens;
        out[r].kv += rest;
        if (r != 0) {
          lead.kv += kv_block_tokens;
          diff[r].kv += kv_block_tokens;
        }
        if (rounds > 0) {
          ++everyone.batch;
        } else {
          if (r != 0) {
            ++lead.batch;
            ++diff[r].batch;
          }
          if (rest > 0) ++out[r].batch;
        }
      }
    }
    if constexpr (Reads) {
      Step running{everyone.batch + lead.batch, everyone.kv + lead.kv};
      for (std::uint32_t r = 0; r < hp; ++r) {
        running.batch -= diff[r].batch;
        running.kv -= diff[r].kv;
        out[r].batch += running.batch;
        out[r].kv += running.kv;
      }
    }
  }

  // This batch with every rank's load dealt into `storage` (at least hp long), which the
  // result borrows: the rank-folded slots that read it then share one deal.
  KvSlices dealt_into(std::span<RankLoad> storage) const {
    if (storage.size() < hp)
      throw InputError(costdsl::detail::str("KvSlices: dealing hp ", hp, " ranks into storage for ", storage.size()));
    deal(storage);
    KvSlices s = *this;
    s.dealt = storage.data();
    return s;
  }

 private:
  static constexpr std::uint32_t small_hp = 8;
  // Requests per chunk of the small deal: its 32-bit sums stay exact (at most 31 a request).
  static constexpr std::size_t chunk = std::size_t{1} << 16;
  // The usual degrees (a power of two up to 8): branch-free passes the compiler vectorises
  // in 32-bit lanes, instead of scattered increments that chain through memory. A
  // request's whole rounds of blocks reach every rank alike, so they are summed once; per
  // rank only 0/1 flags and partial-block tokens remain. A rank reads a request iff it
  // holds one of its tokens: iff the request is longer than the start of the rank's first block.
  template <bool Rows, bool Reads>
  void deal_small(std::span<RankLoad> out) const noexcept {
    const std::uint32_t mask = hp - 1, shift = static_cast<std::uint32_t>(std::countr_zero(hp));
    std::uint64_t rounds = 0;
    if constexpr (Reads)
      for (const std::uint32_t len : decode_kv) rounds += (len / kv_block_tokens) >> shift;
    for (std::uint32_t rank = 0; rank < hp; ++rank)
      out[rank] = {rank == 0 ? prefill_tokens : 0, 0, rounds * kv_block_tokens};
    for (std::size_t first = 0; first < decode_kv.size(); first += chunk) {
      const std::span<const std::uint32_t> part = decode_kv.subspan(first, std::min(chunk, decode_kv.size() - first));
      for (std::uint32_t rank = 0; rank < hp; ++rank) {
        std::uint32_t rows = 0, batch = 0, before = 0, rest = 0;
        for (const std::uint32_t len : part) {
          if constexpr (Rows) rows += (len != 0) & (((len - 1) / kv_block_tokens & mask) == rank);
          if constexpr (Reads) {
            const std::uint32_t r = len / kv_block_tokens & mask;  // the rank of the partial block
            const std::uint32_t owns_rest = r == rank;              // 0 or 1: no branch, no select
            before += rank < r;
            rest += owns_rest * (len % kv_block_tokens);
            batch += len > rank * kv_block_tokens;
          }
        }
        // One whole-struct store per rank (the old pattern): field-wise updates let the
        // compiler vectorise across ranks instead, which leaves hp 2 scalar.
        const RankLoad o = out[rank];
        out[rank] = {o.rows + rows, o.batch + batch, o.kv + std::uint64_t{before} * kv_block_tokens + rest};
      }
    }
  }
};

// A slot that owns the loop over the hp ranks: one launch per rank, Max-folded. Ranks
// with the same load (most of them, once requests span every rank) share one evaluation.
template <KernelDef K>
struct KvRankFolded {
  // By the kernel's input: the rows a rank writes ({tokens}: kv_cache_append) or the KV it
  // reads ({batch, total_kv}: attn_decode).
  static constexpr bool append = requires(typename K::Input in) { in.tokens; };
  static_assert(append != requires(typename K::Input in) { in.batch + in.total_kv; },
                "KvRankFolded: a kernel whose input is the rows written ({tokens}) or the KV read ({batch, total_kv})");
  static constexpr std::string_view kind = K::kind;
  static constexpr Family family = K::family;
  using Input = KvSlices;
  Kernel<K> kernel;

  static typename K::Input rank_input(const KvSlices::RankLoad& load) noexcept {
    if constexpr (append) {
      return {load.rows};
    } else {
      return {load.batch, load.kv};
    }
  }
  static bool same_input(const KvSlices::RankLoad& a, const KvSlices::RankLoad& b) noexcept {
    if constexpr (append) {
      return a.rows == b.rows;
    } else {
      return a.batch == b.batch && a.kv == b.kv;
    }
  }
  // f(rank input, repeats): each run of ranks with equal inputs once.
  // The loads dealt ahead where the batch carries them, else dealt here.
  template <class F>
  static void for_each_rank(const Input& s, F&& f) {
    if (s.dealt != nullptr) {
      for_each_run(std::span<const KvSlices::RankLoad>(s.dealt, s.hp), f);
      return;
    }
    std::array<KvSlices::RankLoad, KvSlices::max_hp> loads;
    s.deal<append, !append>(loads);
    for_each_run(std::span<const KvSlices::RankLoad>(loads.data(), s.hp), f);
  }
  template <class F>
  static void for_each_run(std::span<const KvSlices::RankLoad> loads, F& f) {
    for (std::size_t r = 0; r < loads.size();) {
      std::uint32_t same = 1;
      while (r + same < loads.size() && same_input(loads[r + same], loads[r])) ++same;
      f(rank_input(loads[r]), same);
      r += same;
    }
  }
  template <Quantities Q = Quantities::with_energy>
  Metrics eval(const Input& s) const {
    Metrics acc = algebra::empty();
    double slowest = -1;
    for_each_rank(s, [&](const typename K::Input& in, std::uint32_t repeats) {
      const Metrics m = kernel.template eval<Q>(in);
      for (std::uint32_t i = 0; i < repeats; ++i) algebra::accumulate_max(acc, m);
      if (m.time_s > slowest) {  // report the backend of the rank that sets the time
        slowest = m.time_s;
        acc.backend = m.backend;
      }
    });
    return acc;
  }
  double lower_bound_s(const Input& s) const {
    double b = 0;
    for_each_rank(s, [&](const typename K::Input& in, std::uint32_t) { b = std::max(b, kernel.lower_bound_s(in)); });
    return b;
  }
  std::vector<ConfigField> config_fields() const { return kernel.config_fields(); }
  std::vector<std::string> backends() const { return kernel.backends(); }
  std::vector<std::string> provenance() const { return kernel.provenance(); }
};

// The HP all-to-all, serial or under HOP-B (Helix's batch-wise overlap, arXiv 2507.07120
// §3.3): the decode batch is cut into S slices and slice i's exchange runs beside slice
// i + 1's attention. The slot keeps the all_to_all kind, config and work; under HOP-B its
// time is the exchange's exposed part, (the pipelined attention + exchange) − (the
// attention alone), for the best S of {1, 2, 4, 8}: S = 1 is the serial schedule, so the
// overlap never costs more than running it serially (a scheduler can always not split).
// Attention: the decode slot's kernel (GQA attn_decode; MLA's mla_decode), timed per slice.
template <class Attention = kernels::AttnDecode>
struct HpExchange {
  static constexpr std::string_view kind = kernels::AllToAll::kind;
  static constexpr Family family = kernels::AllToAll::family;
  static constexpr std::uint32_t max_slices = 8;
  struct Input {
    KvSlices slices;                  // the decode batch as the hp ranks hold it
    std::uint64_t extra_tokens = 0;   // rows that are not decodes (none under hp > 1)
  };
  Kernel<kernels::AllToAll> exchange;
  KvRankFolded<Attention> attention;  // the decode slot's launch, per slice
  bool hop_b;
  // One token's partial outputs and LSEs on one GPU: fixed by the config, so a member
  // rather than an input (slot inputs are copied through every nested input list).
  double bytes_per_token;

  kernels::AllToAll::Input message(std::uint64_t tokens) const noexcept {
    const auto b = static_cast<std::uint64_t>(double(tokens) * bytes_per_token);
    return {b, b};
  }
  // Q: the exchange's quantities; the schedule needs times only.
  template <Quantities Q = Quantities::with_energy>
  Metrics eval(const Input& in) const {
    const std::uint64_t decodes = in.slices.decode_kv.size();
    Metrics m = exchange.template eval<Q>(message(decodes + in.extra_tokens));
    if (!hop_b || decodes < 2 || in.extra_tokens != 0) return m;
    const double whole = attention.template eval<Quantities::time_and_work>(in.slices).time_s;
    double exposed = m.time_s;
    for (std::uint32_t slices = 2; slices <= max_slices && slices <= decodes; slices *= 2)
      exposed = std::min(exposed, pipelined_s(in, slices) - whole);
    m.time_s = std::max(exposed, 0.0);
    return m;
  }
  // Under HOP-B the exchange can hide entirely behind attention.
  double lower_bound_s(const Input& in) const {
    if (hop_b) return 0.0;
    return exchange.lower_bound_s(message(in.slices.decode_kv.size() + in.extra_tokens));
  }
  std::vector<ConfigField> config_fields() const { return exchange.config_fields(); }
  std::vector<std::string> backends() const { return exchange.backends(); }
  std::vector<std::string> provenance() const { return exchange.provenance(); }

 private:
  // Slice i's attention starts when slice i − 1's ends; its exchange when both its
  // attention and the previous exchange are done.
  double pipelined_s(const Input& in, std::uint32_t slices) const {
    const std::span<const std::uint32_t> all = in.slices.decode_kv;
    const std::size_t per_slice = (all.size() + slices - 1) / slices;
    constexpr Quantities times = Quantities::time_and_work;
    double attention_done = 0, exchange_done = 0;
    for (std::size_t first = 0; first < all.size(); first += per_slice) {
      const std::span<const std::uint32_t> part = all.subspan(first, std::min(per_slice, all.size() - first));
      attention_done += attention.template eval<times>(KvSlices{part, 0, in.slices.hp}).time_s;
      exchange_done = std::max(exchange_done, attention_done) +
                      exchange.template eval<times>(message(part.size())).time_s;
    }
    return exchange_done;
  }
};

template <class Form, FixedString Name = "attn", QkNorm Norm = QkNorm::none>
class AttnBlockHptp {
  static_assert(Norm != QkNorm::per_layer,
                "costdsl: the per-layer q/k norm's all-reduce over the tp group is modelled in attn_block_tp only");

 public:
  // Config: the form's hidden, num_qo_heads, num_kv_heads, head_dim, tp, hp, dtype, kv_dtype, hop_b
  // (and gemm_dtype, the projections' weights, where the form has one).
  struct Input {
    std::uint64_t batch_tokens = 0;  // Σ append + decodes: rows through the projections
    ops::AttentionWork attention;
    std::span<const std::uint32_t> decode_kv;  // the decodes' KV lengths, sliced per hp rank
    // Where the per-rank loads are dealt once for both rank-folded slots (at least hp long;
    // the inputs borrow it). Empty: each slot deals the batch itself.
    std::span<KvSlices::RankLoad> loads = {};
  };
  static constexpr std::uint64_t max_hp = KvSlices::max_hp;

  static constexpr auto resolve_config(const Form& form) {
    using namespace literals;
    const auto hidden = dim<"hidden">(form);
    const auto num_qo_heads = dim<"num_qo_heads">(form);
    const auto num_kv_heads = dim<"num_kv_heads">(form);
    const auto head_dim = dim<"head_dim">(form);
    const auto tp = dim<"tp">(form);
    const auto hp = dim<"hp">(form);
    // tp first, in attn_block_tp's order: its rejections read the same here.
    require_nonzero(tp);
    require_le<"tp may not exceed num_kv_heads (KV heads are not replicated)">(tp, num_kv_heads);
    const auto num_qo_heads_per_rank = num_qo_heads / tp;
    const auto num_kv_heads_per_rank = num_kv_heads / tp;
    require_nonzero(hp);
    require_le<"hp may not exceed max_hp">(hp, sym<"max_hp">(Static<max_hp>{}));
    const auto gpus = hp * tp;  // N = hp × tp
    const auto num_qo_heads_per_gpu = num_qo_heads / gpus;  // the heads each GPU merges and projects out
    const auto qkv_n = (num_qo_heads_per_rank + 2_c * num_kv_heads_per_rank) * head_dim;
    const auto o_proj_k = num_qo_heads_per_gpu * head_dim;
    const auto has_hp = greater_than_one(hp);
    const auto has_allreduce = greater_than_one(gpus);
    const Dtype dtype = values(form).dtype;
    // Each GPU's partial outputs, all tokens × its tp rank's heads, with one fp32 LSE per
    // token and head; (hp − 1)/hp of it leaves the GPU (AllToAll's bus factor).
    const double a2a_bytes_per_token = double(num_qo_heads_per_rank.value()) *
                                       (double(head_dim.value()) * bytes_per_element(dtype) +
                                        bytes_per_element(Dtype::fp32));
    // the full hidden-wide partial sum, not hidden/N
    const double allreduce_bytes_per_token = double(hidden.value()) * bytes_per_element(dtype);
    COSTDSL_RESOLVED(hidden, head_dim, tp, hp, gpus, num_qo_heads_per_rank, num_kv_heads_per_rank,
                     num_qo_heads_per_gpu, qkv_n, o_proj_k, has_hp, has_allreduce, a2a_bytes_per_token,
                     allreduce_bytes_per_token);
  }
  using Resolved = decltype(resolve_config(std::declval<const Form&>()));

  explicit AttnBlockHptp(const Form& form) : form_(form), r_(resolve_config(form)) {}

  const Resolved& resolved() const noexcept { return r_; }

  auto build(const Timing& t) const {
    using namespace kernels;
    const auto& v = values(form_);
    const std::string label = detail::worklet_label(
        Name.view(), "AttnBlockHptp",
        {{"hp", r_.hp}, {"tp", r_.tp}, {"qo/rank", r_.num_qo_heads_per_rank}, {"kv/rank", r_.num_kv_heads_per_rank},
         {"qo/gpu", r_.num_qo_heads_per_gpu}});
    const Dim qo = to_dim(r_.num_qo_heads_per_rank), kv = to_dim(r_.num_kv_heads_per_rank),
              hd = to_dim(r_.head_dim);
    return labeled<Name>(
        label,
        sum(detail::pre_attn_slots<Norm>(t, v.dtype, gemm_weight_dtype(form_), r_),
            // Nested as the attention op nests them: the same fold order as attn_block_tp.
            sum(leaf<"kv_cache_append">(KvRankFolded<KvCacheAppend>{Kernel<KvCacheAppend>(t, {v.kv_dtype, kv, hd})}),
                leaf<"prefill">(ops::ChunkedPrefill<AttnPrefill>{Kernel<AttnPrefill>(t, {ops::attention_prefill_dtype(v.dtype, v.kv_dtype), qo, kv, hd, 0})}),
                leaf<"decode">(KvRankFolded<AttnDecode>{Kernel<AttnDecode>(t, {v.kv_dtype, qo, kv, hd})})),
            when(r_.has_hp, leaf<"hp_all_to_all">(HpExchange<>{
                                Kernel<AllToAll>(t, {to_dim(r_.hp)}),
                                KvRankFolded<AttnDecode>{Kernel<AttnDecode>(t, {v.kv_dtype, qo, kv, hd})}, v.hop_b,
                                r_.a2a_bytes_per_token})),
            when(r_.has_hp, leaf<"hp_combine">(Kernel<MergeAttnStates>(
                                t, {v.dtype, to_dim(r_.num_qo_heads_per_gpu), hd, to_dim(r_.hp)}))),
            leaf<"o_proj">(Kernel<Gemm>(t, {gemm_weight_dtype(form_), to_dim(r_.hidden), to_dim(r_.o_proj_k)})),
            when(r_.has_allreduce, leaf<"tp_allreduce">(Kernel<AllReduce>(t, {to_dim(r_.gpus)})))));
  }

  // Slot inputs in build() order; m = batch_tokens for every projection, and every hp
  // rank computes partial outputs for all m tokens.
  auto inputs(const Input& in) const {
    const std::uint64_t m = in.batch_tokens;
    const auto hp = static_cast<std::uint32_t>(r_.hp.value());
    if (hp > 1 && !in.attention.prefill.empty())
      throw InputError(costdsl::detail::str(
          "hp ", hp, ": an iteration with ", in.attention.prefill.size(),
          " prefill chunk(s) under KV-parallel attention; hp is a decode-side degree (vLLM's decode context "
          "parallelism and TensorRT-LLM's helix take the KV from a prefill server): run prefill at hp 1"));
    KvSlices slices{in.decode_kv, in.attention.append_tokens - in.attention.decode_count, hp};
    if (!in.loads.empty()) slices = slices.dealt_into(in.loads);
    return nest<Name>(costdsl::inputs(
        detail::pre_attn_slot_inputs<Norm>(m, r_), input<"kv_cache_append">(slices), input<"prefill">(in.attention.prefill),
        input<"decode">(slices),
        when(r_.has_hp, input<"hp_all_to_all">(HpExchange<>::Input{slices, m - in.attention.decode_count})),
        when(r_.has_hp, input<"hp_combine">(kernels::MergeAttnStates::Input{m})),
        input<"o_proj">(kernels::Gemm::Input{m}),
        when(r_.has_allreduce, input<"tp_allreduce">(kernels::AllReduce::Input{
                                   static_cast<std::uint64_t>(double(m) * r_.allreduce_bytes_per_token)}))));
  }

 private:
  Form form_;
  Resolved r_;
};

}  // namespace costdsl::worklets
