#pragma once
// L2 HpExchange: the all-to-all that makes KV-parallel attention's partial outputs exact
// (each GPU's outputs and LSEs for its heads), serial or under HOP-B. One slot; its
// schedule times the decode slot's own launch per batch slice (a RankFolded over KvSlices).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "costdsl/concepts.hpp"
#include "costdsl/kernel.hpp"
#include "costdsl/kernels/all_to_all.hpp"
#include "costdsl/kernels/attn_decode.hpp"
#include "costdsl/metrics.hpp"
#include "costdsl/ops/attention/kv_slices.hpp"
#include "costdsl/quantities.hpp"

namespace costdsl::ops {

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
    KvSlicesRef slices;               // the decode batch as the hp ranks hold it
    std::uint64_t extra_tokens = 0;   // rows that are not decodes (none under hp > 1)
  };
  Kernel<kernels::AllToAll> exchange;
  HpRankFolded<Attention> attention;  // the decode slot's launch, per slice
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
    const std::uint64_t decodes = in.slices->rows();
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
    return exchange.lower_bound_s(message(in.slices->rows() + in.extra_tokens));
  }
  bool same_answers_as(const HpExchange& o) const noexcept {
    return hop_b == o.hop_b && bytes_per_token == o.bytes_per_token && exchange.same_answers_as(o.exchange) &&
           attention.same_answers_as(o.attention);
  }
  std::vector<ConfigField> config_fields() const { return exchange.config_fields(); }
  std::vector<std::string> backends() const { return exchange.backends(); }
  std::vector<std::string> provenance() const { return exchange.provenance(); }

 private:
  // Slice i's attention starts when slice i − 1's ends; its exchange when both its
  // attention and the previous exchange are done. Sliced by request: a request's rows
  // stay together.
  double pipelined_s(const Input& in, std::uint32_t slices) const {
    const std::span<const std::uint32_t> all = in.slices->decode_kv;
    const std::size_t per_slice = (all.size() + slices - 1) / slices;
    constexpr Quantities times = Quantities::time_and_work;
    double attention_done = 0, exchange_done = 0;
    for (std::size_t first = 0; first < all.size(); first += per_slice) {
      const std::span<const std::uint32_t> part = all.subspan(first, std::min(per_slice, all.size() - first));
      const KvSlices slice{part, 0, in.slices->hp, in.slices->decode_rows};
      attention_done += attention.template eval<times>(KvSlicesRef(slice)).time_s;
      exchange_done = std::max(exchange_done, attention_done) +
                      exchange.template eval<times>(message(slice.rows())).time_s;
    }
    return exchange_done;
  }
};

}  // namespace costdsl::ops
