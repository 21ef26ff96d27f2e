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
#include <memory>
#include <span>

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
  // Every rank's load (hp of them), dealt once ahead (deal_into) for all the slots that
  // read this batch; null: each rank-folded slot deals the batch itself.
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

  // Every rank's load dealt into `storage` (at least hp long), which this batch then
  // borrows: the rank-folded slots that read it share one deal.
  void deal_into(std::span<RankLoad> storage) {
    if (storage.size() < hp)
      throw InputError(costdsl::detail::str("KvSlices: dealing hp ", hp, " ranks into storage for ", storage.size()));
    deal(storage);
    dealt = storage.data();
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
