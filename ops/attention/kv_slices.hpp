#pragma once
// L2 KvSlices: a decode batch dealt over the hp ranks of KV-parallel attention (Helix,
// Bhatia et al. arXiv 2507.07120; vLLM's decode context parallelism; TensorRT-LLM's helix).
// Each request's KV is cut into blocks of kv_block_tokens, dealt round-robin over the ranks
// from rank 0, and a new token's K and V are written only by the rank that owns its block,
// as TensorRT-LLM's helix places them. Read by the rank-folded slots (ops/rank_folded.hpp:
// kv_cache_append's rows, decode's reads) of worklets/attn_block_hptp.hpp and
// worklets/mla_block_hp.hpp, and by the HP exchange (ops/attention/hp_exchange.hpp).
#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <utility>

#include "costdsl/detail/str.hpp"
#include "costdsl/error.hpp"
#include "costdsl/kernel_def.hpp"
#include "costdsl/ops/rank_folded.hpp"

namespace costdsl::ops {

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
  // Query rows per decode (AttentionBatch::decode_rows): every one writes the request's
  // block owner's rows and reads each rank's share of its KV.
  std::uint32_t decode_rows = 1;
  // Every rank's load (hp of them), dealt once ahead (deal_into) for all the slots that
  // read this batch; null: each rank-folded slot deals the batch itself.
  const RankLoad* dealt = nullptr;

  // Query rows of the batch: every decode's decode_rows (what the HP exchange carries).
  std::uint64_t rows() const noexcept { return std::uint64_t{decode_kv.size()} * decode_rows; }

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
      scale_rows(out);
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
    scale_rows(out);
  }

  // Every rank's load dealt into `storage` (at least hp long), which this batch then
  // borrows: the rank-folded slots that read it share one deal. A template, like deal():
  // a translation unit that never deals (no hp grain) instantiates none of it.
  template <bool Rows = true, bool Reads = true>
  void deal_into(std::span<RankLoad> storage) {
    if (storage.size() < hp)
      throw InputError(costdsl::detail::str("KvSlices: dealing hp ", hp, " ranks into storage for ", storage.size()));
    deal<Rows, Reads>(storage);
    dealt = storage.data();
  }

 private:
  // The deal counts each request once; its decode_rows rows load the same ranks alike.
  void scale_rows(std::span<RankLoad> out) const noexcept {
    if (decode_rows == 1) return;
    for (std::uint32_t k = 0; k < hp; ++k) {
      const std::uint64_t prefill = k == 0 ? prefill_tokens : 0;
      out[k] = {(out[k].rows - prefill) * decode_rows + prefill, out[k].batch * decode_rows, out[k].kv * decode_rows};
    }
  }

  static constexpr std::uint32_t small_hp = 8;
  // Requests per chunk of the small deal: its 32-bit sums stay exact (at most 31 a request).
  static constexpr std::size_t chunk = std::size_t{1} << 16;
  // The usual degrees (a power of two up to 8), in 4-lane 32-bit vectors (GCC's and
  // Clang's vector extensions; SSE2 on baseline x86-64). Written as plain loops, the
  // compiler left this scalar at the project's -O2 (~32 instructions a request and rank:
  // two thirds of an hp 2 Llama-3-70B iteration) and half vectorised at -O3.
  //
  // Per request, with blocks = len / 32, d = (len − 1) / 32 (both below 2^27: signed
  // compares hold) and r = blocks mod hp, the partial block's rank:
  //   whole rounds   blocks / hp blocks on every rank: summed once
  //   rows_k         d mod hp == k (the new token's block owner)
  //   kv_k           32 · #{r > k} + (r == k ? len mod 32 : 0)
  //   batch_k        len > 32k: len ≥ 1 and d ≥ k (a rank reads a request iff it holds one
  //                  of its tokens)
  // Only ranks 1..hp − 1 are counted lane by lane; rank 0 is what is left of the totals. An
  // empty slot (len 0) has d = 2^27 − 1: it adds to every rank's batch and to rank hp − 1's
  // rows, which its count takes back.
  // Both kinds of load are dealt whatever a slot asks for (one instantiation per degree,
  // not three: compile time), the ones it did not ask for zeroed: the hot path deals once
  // for every slot and asks for both.
  template <bool Rows, bool Reads>
  void deal_small(std::span<RankLoad> out) const noexcept {
    switch (hp) {
      case 1: deal_lanes<1>(out); break;
      case 2: deal_lanes<2>(out); break;
      case 4: deal_lanes<4>(out); break;
      default: deal_lanes<8>(out); break;
    }
    for (std::uint32_t k = 0; k < hp; ++k) {
      if constexpr (!Rows) out[k].rows = k == 0 ? prefill_tokens : 0;
      if constexpr (!Reads) out[k].batch = out[k].kv = 0;
    }
  }

  using Lanes = std::uint32_t __attribute__((vector_size(16)));
  using SignedLanes = std::int32_t __attribute__((vector_size(16)));
  static constexpr std::size_t lanes = 4;
  static std::uint32_t lane_sum(Lanes v) noexcept { return v[0] + v[1] + v[2] + v[3]; }
  template <class V>
  static Lanes as_lanes(V v) noexcept {
    return reinterpret_cast<Lanes>(v);
  }

  template <std::uint32_t Hp>
  void deal_lanes(std::span<RankLoad> out) const noexcept {
    static_assert(std::has_single_bit(kv_block_tokens));
    constexpr std::uint32_t mask = Hp - 1, block_shift = std::countr_zero(kv_block_tokens);
    constexpr std::uint32_t round_shift = block_shift + std::countr_zero(Hp);
    // Per rank 1..Hp − 1 (index k − 1): rows, requests read, partial blocks held, their tokens.
    constexpr std::uint32_t others = Hp - 1 == 0 ? 1 : Hp - 1;
    std::uint64_t rows[others]{}, reads[others]{}, held[others]{}, rest[others]{};
    std::uint64_t rounds = 0, empty = 0, all_rest = 0;
    for (std::size_t first = 0; first < decode_kv.size(); first += chunk) {
      const std::uint32_t* part = decode_kv.data() + first;
      const std::size_t n = std::min(chunk, decode_kv.size() - first);
      // Whole rounds per request reach 2^27: summed as high and low 16 bits to stay exact.
      Lanes rounds_hi{}, rounds_lo{}, empty_l{}, rest_l{}, rows_l[others]{}, reads_l[others]{}, held_l[others]{},
          rest_k[others]{};
      std::size_t i = 0;
      for (; i + lanes <= n; i += lanes) {
        Lanes len;
        std::memcpy(&len, part + i, sizeof len);
        const Lanes in_block = len & (kv_block_tokens - 1);
        empty_l -= as_lanes(len == 0);  // compares give 0 or −1 a lane
        const Lanes whole = len >> round_shift;
        rounds_hi += whole >> 16;
        rounds_lo += whole & 0xffffu;
        rest_l += in_block;
        if constexpr (Hp > 1) {
          const auto d = reinterpret_cast<SignedLanes>((len - 1) >> block_shift);
          const auto r = reinterpret_cast<SignedLanes>(len >> block_shift & mask);
          const SignedLanes owner = d & static_cast<std::int32_t>(mask);
          // Each rank 1..Hp − 1 in turn, unrolled (a loop kept the per-rank vectors in memory at -O2).
          [&]<std::size_t... K>(std::index_sequence<K...>) {
            (..., [&] {
              constexpr auto k = static_cast<std::int32_t>(K + 1);
              rows_l[K] -= as_lanes(owner == k);
              const SignedLanes mine = r == k;
              held_l[K] -= as_lanes(mine);
              rest_k[K] += in_block & as_lanes(mine);
              reads_l[K] -= as_lanes(d >= k);
            }());
          }(std::make_index_sequence<Hp - 1>{});
        }
      }
      for (; i < n; ++i) {  // the chunk's last requests, one at a time, by the same rules
        const std::uint32_t len = part[i], in_block = len & (kv_block_tokens - 1);
        const std::uint32_t d = (len - 1) >> block_shift, r = len >> block_shift & mask;
        empty += len == 0 ? 1 : 0;
        rounds += len >> round_shift;
        all_rest += in_block;
        for (std::uint32_t k = 1; k < Hp; ++k) {
          rows[k - 1] += (d & mask) == k ? 1 : 0;
          held[k - 1] += r == k ? 1 : 0;
          rest[k - 1] += r == k ? in_block : 0;
          reads[k - 1] += d >= k ? 1 : 0;
        }
      }
      rounds += (std::uint64_t{lane_sum(rounds_hi)} << 16) + lane_sum(rounds_lo);
      empty += lane_sum(empty_l);
      all_rest += lane_sum(rest_l);
      for (std::uint32_t k = 0; k + 1 < Hp; ++k) {
        rows[k] += lane_sum(rows_l[k]);
        reads[k] += lane_sum(reads_l[k]);
        held[k] += lane_sum(held_l[k]);
        rest[k] += lane_sum(rest_k[k]);
      }
    }
    const std::uint64_t requests = decode_kv.size() - empty;  // every request is read by rank 0
    std::uint64_t rows_left = requests, rest_left = all_rest, held_above = 0;
    for (std::uint32_t k = Hp - 1; k >= 1; --k) {
      const std::uint64_t k_rows = rows[k - 1] - (k == Hp - 1 ? empty : 0);
      out[k] = {k_rows, reads[k - 1] - empty, (rounds + held_above) * kv_block_tokens + rest[k - 1]};
      rows_left -= k_rows;
      rest_left -= rest[k - 1];
      held_above += held[k - 1];
    }
    out[0] = {prefill_tokens + rows_left, requests, (rounds + held_above) * kv_block_tokens + rest_left};
  }
};

// The batch as the hp ranks' slots take it (kv_cache_append, decode, the exchange): one
// pointer to a KvSlices written once per iteration, where the arch keeps it (its input
// scratch) or owned by the reference where it gives no place. The slot inputs are moved
// through every level of the nested input lists: the 40-byte batch itself, built field by
// field and then copied whole, stalled store forwarding at each copy: about half of an hp
// iteration's input building, the deal aside (bench/README.md, "KV-parallel decode").
class KvSlicesRef {
 public:
  KvSlicesRef() = default;  // a placeholder a scratch buffer holds until assigned
  explicit KvSlicesRef(const KvSlices& borrowed) noexcept : slices_(&borrowed) {}
  explicit KvSlicesRef(std::unique_ptr<const KvSlices> owned) noexcept
      : owned_(std::move(owned)), slices_(owned_.get()) {}

  const KvSlices& operator*() const noexcept { return *slices_; }
  const KvSlices* operator->() const noexcept { return slices_; }

  // The batch written into `storage` (null: a new one this reference owns), and a
  // reference to it: the first slot's input; the others borrow *result.
  static KvSlicesRef write(KvSlices* storage, const KvSlices& batch) {
    if (storage == nullptr) return KvSlicesRef(std::make_unique<const KvSlices>(batch));
    *storage = batch;
    return KvSlicesRef(*storage);
  }

 private:
  std::unique_ptr<const KvSlices> owned_;
  const KvSlices* slices_ = nullptr;
};

// The runs of hp ranks with the same launch, for a kernel whose input is the rows a rank
// writes ({tokens}: kv_cache_append) or the KV it reads ({batch, total_kv}: attn_decode,
// mla_decode): f(that rank's kernel input, how many neighbouring ranks share it). Ranks with
// the same load (most of them, once requests span every rank) share one evaluation. The
// loads dealt ahead where the batch carries them, else dealt here.
template <class KernelInput, class F>
void rank_runs(const KvSlices& s, F&& f) {
  constexpr bool append = requires(KernelInput in) { in.tokens; };
  static_assert(append != requires(KernelInput in) { in.batch + in.total_kv; },
                "a KV-parallel rank's kernel takes the rows it writes ({tokens}) or the KV it reads "
                "({batch, total_kv})");
  const auto walk = [&](std::span<const KvSlices::RankLoad> loads) {
    const auto same = [](const KvSlices::RankLoad& a, const KvSlices::RankLoad& b) {
      if constexpr (append) {
        return a.rows == b.rows;
      } else {
        return a.batch == b.batch && a.kv == b.kv;
      }
    };
    for (std::size_t r = 0; r < loads.size();) {
      std::uint32_t run = 1;
      while (r + run < loads.size() && same(loads[r + run], loads[r])) ++run;
      if constexpr (append) {
        f(KernelInput{loads[r].rows}, run);
      } else {
        f(KernelInput{loads[r].batch, loads[r].kv}, run);
      }
      r += run;
    }
  };
  if (s.dealt != nullptr) {
    walk(std::span<const KvSlices::RankLoad>(s.dealt, s.hp));
    return;
  }
  std::array<KvSlices::RankLoad, KvSlices::max_hp> loads;
  s.deal<append, !append>(loads);
  walk(std::span<const KvSlices::RankLoad>(loads.data(), s.hp));
}

template <class KernelInput, class F>
void rank_runs(const KvSlicesRef& s, F&& f) {
  rank_runs<KernelInput>(*s, f);
}

// A kernel launched on every hp rank, one slot for all of them (kv_cache_append, decode).
template <KernelDef K>
using HpRankFolded = RankFolded<K, KvSlicesRef>;

}  // namespace costdsl::ops
