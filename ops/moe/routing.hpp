#pragma once
// L2 MoE routing math (pure, allocation-free): where one iteration's tokens·top_k
// expert assignments land, per expert and per EP rank.
//
//   experts  assignment shares ∝ (popularity rank + 1)^-exponent (0 = uniform gating),
//            water-filled so no expert gets more rows than there are tokens (a token
//            picks an expert at most once), then integer rows by largest remainder
//   ranks    num_experts / ep experts per rank, placed by popularity (strided: the i-th
//            most popular expert sits on rank i % ep; contiguous: on rank i / (E/ep))
//   active   the experts a rank expects to run: each token picks its experts on its own,
//            so an expert given r of T tokens' rows on average has a row with probability
//            1 - (1 - r/T)^T. A decode batch of T·top_k < num_experts rows then touches
//            fewer experts than rows (16 tokens, top 4 of 128: 51, not 64), the weights a
//            memory-bound expert GEMM reads
//
// Fixed-capacity arrays (max_ep ranks, max_experts experts) keep the per-iteration
// path free of allocation; the worklet's resolve_config rejects configs beyond them.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <span>
#include <string>

#include "costdsl/error.hpp"

namespace costdsl::ops::moe {

inline constexpr std::uint32_t max_ep = 256;        // EP ranks one load can describe
inline constexpr std::uint32_t max_experts = 1024;  // routed experts (the largest MoE ships 512)

enum class Placement : std::uint8_t { strided, contiguous };

// How a batch's assignments spread: exponent 0 is balanced gating; about 1 is a
// Zipf-like set of hot experts. Contiguous placement is the worst case (all hot
// experts on rank 0), strided the usual case (hot experts spread by id).
struct Routing {
  double exponent = 0.0;
  Placement placement = Placement::strided;
  friend constexpr bool operator==(const Routing&, const Routing&) = default;
};

// One EP rank's share: rows (token copies routed here) and the experts expected to get at
// least one of them (the tokens choosing independently).
struct RankLoad {
  std::uint32_t rows = 0;
  std::uint32_t active_experts = 0;
  friend constexpr bool operator==(const RankLoad&, const RankLoad&) = default;
};

struct EpLoad {
  std::uint32_t ranks = 0;
  std::array<RankLoad, max_ep> rank{};
  // The arguments route_into last wrote this load from (none yet: a default load): routed
  // again with the same ones, a buffer an arch keeps from iteration to iteration is left
  // as it is (a DP group's token count mostly holds between events).
  struct Routed {
    std::uint64_t tokens = 0;
    std::uint32_t num_experts = 0, top_k = 0, ep = 0;
    Routing routing{};
    bool valid = false;
    friend constexpr bool operator==(const Routed&, const Routed&) = default;
  } routed{};

  std::span<const RankLoad> used() const noexcept { return {rank.data(), ranks}; }
  std::uint64_t total_rows() const noexcept {
    std::uint64_t s = 0;
    for (const RankLoad& r : used()) s += r.rows;
    return s;
  }
  std::uint32_t max_rows() const noexcept {
    std::uint32_t m = 0;
    for (const RankLoad& r : used()) m = std::max(m, r.rows);
    return m;
  }
};

namespace detail {
// The expected active experts of a rank whose experts expect `rows` rows each (a share of
// `tokens` tokens), summed in `sum` and rounded once per rank: at least one where the
// rank has rows, at most its rows and its experts.
inline double hit(double rows, std::uint64_t tokens) noexcept {
  // From 40 rows on, (1 - r/T)^T <= e^-r lies below half an ulp of 1: exactly 1, no pow
  // (a prefill's experts, and most decode batches' under wide EP).
  if (rows >= 40) return 1.0;
  return rows <= 0 ? 0.0 : 1.0 - std::pow(1.0 - rows / double(tokens), double(tokens));
}
// llround for a count (0 <= x < 2^32), inline: the truncation is the floor there and the
// fraction x − floor(x) exact, so halves round up as llround's do. It runs once per rank
// of every routed layer (libm's llround was a fiftieth of a disaggregated DeepSeek run).
inline std::uint32_t round_count(double x) noexcept {
  if (!(x > 0)) return 0;
  const auto t = static_cast<std::uint64_t>(x);
  return static_cast<std::uint32_t>(t + (x - static_cast<double>(t) >= 0.5 ? 1 : 0));
}
inline std::uint32_t active(double sum, std::uint32_t rows, std::uint32_t experts) noexcept {
  const std::uint32_t a = round_count(sum);
  return std::min(std::max(a, rows > 0 ? 1u : 0u), std::min(rows, experts));
}
// Each of n experts' expected rows, most popular first: the first c (the heaviest) sit at
// the cap, the rest share λ·w. Suffix sums are added from the tail: subtracting from the
// total would cancel catastrophically. Only the first n entries are used (each written
// before it is read): not zeroed, as 24 KB of memset per skewed iteration would cost more
// than the water-fill itself.
inline void water_fill(std::uint64_t total, std::uint64_t cap, const Routing& r, std::uint32_t n,
                       std::array<double, max_experts>& quota) {
  std::array<double, max_experts> w, rest;
  for (std::uint32_t i = 0; i < n; ++i) w[i] = std::pow(double(i) + 1.0, -r.exponent);
  for (std::uint32_t i = n; i-- > 0;) rest[i] = w[i] + (i + 1 < n ? rest[i + 1] : 0.0);
  std::uint32_t c = 0;
  double lambda = 0;
  for (; c < n; ++c) {
    lambda = (double(total) - double(c) * double(cap)) / rest[c];
    if (lambda * w[c] <= double(cap)) break;
  }
  for (std::uint32_t i = 0; i < n; ++i) quota[i] = i < c ? double(cap) : std::min(double(cap), lambda * w[i]);
}
inline void check_routing(std::uint64_t tokens, std::uint32_t num_experts, std::uint32_t top_k, const Routing& r) {
  if (num_experts == 0 || num_experts > max_experts)
    throw InputError("moe routing: num_experts " + std::to_string(num_experts) + " must be in 1.." +
                     std::to_string(max_experts));
  if (top_k == 0 || top_k > num_experts)
    throw InputError("moe routing: top_k " + std::to_string(top_k) + " must be in 1..num_experts (" +
                     std::to_string(num_experts) + ")");
  if (!(r.exponent >= 0.0 && std::isfinite(r.exponent)))
    throw InputError("moe routing: exponent " + std::to_string(r.exponent) + " must be finite and >= 0");
  if (tokens > std::numeric_limits<std::uint32_t>::max() / top_k)
    throw InputError("moe routing: tokens " + std::to_string(tokens) + " * top_k " + std::to_string(top_k) +
                     " overflows 32 bits");
}
// Skewed gating: each expert's expected rows into quota (water_fill), and the integer rows
// into out (out.size() experts) by largest remainder: floors first, then +1 by descending
// fraction (ties: more popular first).
inline void skewed_rows(std::uint64_t total, std::uint64_t cap, const Routing& r, std::span<std::uint32_t> out,
                        std::array<double, max_experts>& quota) {
  const auto n = static_cast<std::uint32_t>(out.size());
  water_fill(total, cap, r, n, quota);
  std::uint64_t given = 0;
  for (std::uint32_t i = 0; i < n; ++i) {
    out[i] = static_cast<std::uint32_t>(std::floor(quota[i]));
    given += out[i];
  }
  std::array<std::uint16_t, max_experts> order;
  for (std::uint32_t i = 0; i < n; ++i) order[i] = static_cast<std::uint16_t>(i);
  auto frac = [&](std::uint16_t i) { return quota[i] - double(out[i]); };
  std::sort(order.begin(), order.begin() + n, [&](std::uint16_t a, std::uint16_t b) {
    return frac(a) != frac(b) ? frac(a) > frac(b) : a < b;
  });
  for (std::uint32_t j = 0; given < total; j = (j + 1) % n)  // rounding error may need a second lap
    if (out[order[j]] < cap) ++out[order[j]], ++given;
  for (std::uint32_t j = n - 1; given > total; j = (j == 0 ? n - 1 : j - 1))  // or overshoot: trim the smallest
    if (out[order[j]] > 0) --out[order[j]], --given;
}
}  // namespace detail

// Rows per expert, most popular first, into out (out.size() = num_experts). Σ out = tokens·top_k.
inline void expert_rows(std::uint64_t tokens, std::uint32_t top_k, const Routing& r, std::span<std::uint32_t> out) {
  const auto n = static_cast<std::uint32_t>(out.size());
  detail::check_routing(tokens, n, top_k, r);
  const std::uint64_t total = tokens * top_k, cap = tokens;
  if (r.exponent == 0.0) {  // uniform: exact integers, the remainder to the first experts
    for (std::uint32_t i = 0; i < n; ++i) out[i] = static_cast<std::uint32_t>(total / n + (i < total % n ? 1 : 0));
    return;
  }
  std::array<double, max_experts> quota;
  detail::skewed_rows(total, cap, r, out, quota);
}

// A routed load as the expert slots take it: a pointer, so that the 2 KB rank table is
// not copied at every level of the input list (it was a quarter of a Qwen3 iteration).
// It either owns the load (one handle per load) or borrows one that outlives it (the
// owner's, or a caller's buffer). Move-only.
class EpLoadRef {
 public:
  explicit EpLoadRef(std::unique_ptr<const EpLoad> owned) noexcept : owned_(std::move(owned)), load_(owned_.get()) {}
  explicit EpLoadRef(const EpLoad& borrowed) noexcept : load_(&borrowed) {}

  const EpLoad& operator*() const noexcept { return *load_; }
  const EpLoad* operator->() const noexcept { return load_; }

 private:
  std::unique_ptr<const EpLoad> owned_;
  const EpLoad* load_;
};

// The runs of EP ranks (or TP shards) with the same launch, for ops::RankFolded: f(a rank's
// kernel input, how many neighbouring ranks share it). A launch takes its rank's routed
// rows, and the experts they hit where the kernel's input has that field (grouped_gemm,
// fused_moe): by the input's shape, not a kind list. Balanced routing gives neighbouring
// ranks the same load: one launch evaluated for them.
template <class KernelInput, class F>
void rank_runs(const EpLoadRef& load, F&& f) {
  const std::span<const RankLoad> ranks = load->used();
  for (std::size_t r = 0; r < ranks.size();) {
    std::uint32_t run = 1;
    while (r + run < ranks.size() && ranks[r + run] == ranks[r]) ++run;
    if constexpr (requires(KernelInput in) { in.active_experts; }) {
      f(KernelInput{ranks[r].rows, ranks[r].active_experts}, run);
    } else {
      f(KernelInput{ranks[r].rows}, run);
    }
    r += run;
  }
}

// Rows and active experts per EP rank (num_experts % ep == 0; checked by the worklet),
// into `load` (only its first ep ranks are written: a caller's buffer is not cleared
// or copied whole, 2 KB, every iteration).
inline void route_into(std::uint64_t tokens, std::uint32_t num_experts, std::uint32_t top_k, std::uint32_t ep,
                       const Routing& r, EpLoad& load) {
  if (ep == 0 || ep > max_ep || num_experts % ep != 0)
    throw InputError("moe routing: ep " + std::to_string(ep) + " must be in 1.." + std::to_string(max_ep) +
                     " and divide num_experts " + std::to_string(num_experts));
  const EpLoad::Routed key{tokens, num_experts, top_k, ep, r, true};
  if (load.routed == key) return;  // the same arguments: this load already holds their routing
  load.routed.valid = false;       // until the new routing is written (a throw below leaves none)
  const std::uint32_t per_rank = num_experts / ep;
  const bool strided = r.placement == Placement::strided;
  load.ranks = ep;
  if (r.exponent == 0.0) {
    // Uniform gating in closed form, per rank instead of per expert (the same integers as
    // the walk below): expert i has q + (i < rem) rows.
    detail::check_routing(tokens, num_experts, top_k, r);
    const std::uint64_t total = tokens * top_k;
    const auto q = static_cast<std::uint32_t>(total / num_experts), rem = static_cast<std::uint32_t>(total % num_experts);
    const double each = detail::hit(double(total) / double(num_experts), tokens);  // every expert's chance
    for (std::uint32_t rank = 0; rank < ep; ++rank) {
      std::uint32_t extra = 0;  // this rank's experts below rem
      if (strided) {
        extra = rem > rank ? std::min(per_rank, (rem - rank + ep - 1) / ep) : 0;
      } else {
        const std::uint32_t first = rank * per_rank;
        extra = rem > first ? std::min(per_rank, rem - first) : 0;
      }
      const std::uint32_t rows = per_rank * q + extra;
      load.rank[rank] = {rows, detail::active(per_rank * each, rows, per_rank)};
    }
    load.routed = key;
    return;
  }
  detail::check_routing(tokens, num_experts, top_k, r);
  // Each expert's expected rows (its chance of a row) and its integer rows, one water-fill
  // for both; only the first num_experts entries are written and read.
  std::array<std::uint32_t, max_experts> rows;
  std::array<double, max_experts> quota;
  detail::skewed_rows(tokens * top_k, tokens, r, std::span<std::uint32_t>(rows.data(), num_experts), quota);
  std::fill_n(load.rank.begin(), ep, RankLoad{});
  std::array<double, max_ep> hits{};
  // Expert i lives on rank i % ep (strided) or i / (num_experts / ep) (contiguous): walked
  // with wrapping counters, not a divide per expert (that was most of an MoE layer's routing).
  std::uint32_t rank = 0, in_rank = 0;
  for (std::uint32_t i = 0; i < num_experts; ++i) {
    load.rank[rank].rows += rows[i];
    hits[rank] += detail::hit(quota[i], tokens);
    if (strided) {
      rank = rank + 1 == ep ? 0 : rank + 1;
    } else if (++in_rank == per_rank) {
      in_rank = 0;
      ++rank;
    }
  }
  for (std::uint32_t k = 0; k < ep; ++k)
    load.rank[k].active_experts = detail::active(hits[k], load.rank[k].rows, per_rank);
  load.routed = key;
}

inline EpLoad route(std::uint64_t tokens, std::uint32_t num_experts, std::uint32_t top_k, std::uint32_t ep,
                    const Routing& r) {
  EpLoad load;
  route_into(tokens, num_experts, top_k, ep, r, load);
  return load;
}

}  // namespace costdsl::ops::moe
