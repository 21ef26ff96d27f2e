#pragma once
// L1 gdn_prefill: the gated delta rule over a batch of fresh prefill sequences, by the
// chunked algorithm of flash-linear-attention (chunk_gated_delta_rule; per rank).
// `batch` sequences of `seq_len` tokens, each split into chunks of C = 64 tokens. Within a
// chunk the delta rule's rank-one updates are gathered into the WY form (intra-chunk
// work: A = β·KKᵀ strictly lower, T = (I + A)⁻¹, W = T·(β·e^g·K), U = T·(β·V), and the
// chunk's causal QKᵀ); across chunks one fp32 state S (head_k_dim × head_v_dim per v head)
// is carried serially (inter-chunk work: V_new = U − W·S, S ← e^g·S + Kᵀ·V_new, O = Q·S +
// intra-chunk attention over V_new). Each k head is shared by num_v_heads / num_k_heads v
// heads. Each sequence reads its initial state and writes its final one.
//
// FLA runs this as a pipeline of eight launches whose intermediates go through HBM: the
// l2 norms of q and k, the chunk-local cumsum of g, A (fp32), its triangular solve (to the
// activation dtype), W and U, the inter-chunk recurrence (V_new and every chunk's starting
// state h, in the activation dtype), and the output. The byte count is that pipeline's.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "costdsl/dim.hpp"
#include "costdsl/dtype.hpp"
#include "costdsl/kernel_def.hpp"
#include "costdsl/kernels/detail/compiled_once.hpp"
#include "costdsl/kernels/detail/gdn_heads.hpp"
#include "costdsl/reflect.hpp"

namespace costdsl::kernels {

struct GdnPrefill : detail::SequenceAxes {
  static constexpr std::string_view kind = "gdn_prefill";
  static constexpr Family family = Family::attention;

  struct Config {
    COSTDSL_FIELDS((Dtype, dtype), (Dim, num_k_heads), (Dim, head_k_dim), (Dim, num_v_heads), (Dim, head_v_dim));
  };
  // Input, axes, point, input_at, off-grid and axis rules, idle, tokens: SequenceAxes.

  // FLA's chunk length, the launches of its pipeline (see the file comment), and the
  // head_v_dim block one program of the recurrence carries (FLA's BV).
  static constexpr std::uint64_t chunk = 64;
  static constexpr std::size_t launches = 8;
  static constexpr double recurrence_v_block = 64;
  // g, β, the pre-solve A and the recurrent state are fp32 whatever the activations' dtype.
  static constexpr double fp32_bytes = 4;

  static detail::GdnHeads heads(const Config& c) {
    return detail::GdnHeads::of(c);
  }

  // A layout no table holds answers from the nearest measured one of its dtype, scaled by
  // the roofline (Kernel: SCALED).
  static double transfer_distance(const Config& a, const Config& b) {
    if (a.dtype != b.dtype) return std::numeric_limits<double>::infinity();
    return detail::GdnHeads::distance(heads(a), heads(b));
  }


  // Flops of one chunk of n tokens for one v head (dk = head_k_dim, dv = head_v_dim; a
  // multiply-add is 2):
  //   intra-chunk products: A = KKᵀ strictly lower n(n−1)·dk; (I + A)⁻¹ of a unit lower
  //     triangle n(n−1)(n−2)/3; W and U through that triangle n(n+1)·(dk + dv); the causal
  //     QKᵀ (diagonal included) and its product with V_new n(n+1)·(dk + dv)
  //   inter-chunk products: W·S, Kᵀ·V_new, Q·S 6·n·dk·dv
  //   elementwise: g's cumsum n; A's gates β_i·e^(g_i − g_j) 4 per pair, 2n(n−1); QKᵀ's
  //     e^(g_i − g_j) 3 per pair, 1.5·n(n+1); the β·e^g row scales of K and V n(2 + dk + dv);
  //     V_new = U − W·S n·dv; its decay to the chunk's end n(dv + 2); the output's e^g scale
  //     and sum n(2dv + 1); the state's decay dk·dv + 1
  static double chunk_flops(double n, double dk, double dv) {
    if (n == 0) return 0;
    const double products =
        n * (n - 1) * dk + n * (n - 1) * (n - 2) / 3 + 2 * n * (n + 1) * (dk + dv) + 6 * n * dk * dv;
    const double elementwise = n + 2 * n * (n - 1) + 1.5 * n * (n + 1) + n * (2 + dk + dv) + n * dv + n * (dv + 2) +
                               n * (2 * dv + 1) + dk * dv + 1;
    return products + elementwise;
  }
  // Every sequence: its full chunks and its remainder, per v head; per token and k head
  // the l2 norms of q and k, 3·dk each (square-add, then scale; the 1/√dk scale of q folds
  // into its norm's).
  static double flops(const Config& c, const Input& in) {
    if (idle(in)) return 0;
    const detail::GdnHeads h = heads(c);
    const double dk = double(h.head_k_dim), dv = double(h.head_v_dim);
    const double full = double(in.seq_len / chunk), rest = double(in.seq_len % chunk);
    const double per_v_head = full * chunk_flops(double(chunk), dk, dv) + chunk_flops(rest, dk, dv);
    const double per_sequence =
        double(h.num_v_heads) * per_v_head + double(h.num_k_heads) * 6.0 * dk * double(in.seq_len);
    return double(in.batch) * per_sequence;
  }

  // The HBM bytes of each of the pipeline's launches (e = the activation dtype's size; g,
  // β and the pre-solve A fp32; every intermediate a token writes is read by a later
  // launch, so each counts twice):
  //   [0], [1] l2 norms of q, of k: read and write num_k_heads · dk per token, each
  //   [2] cumsum of g: g read and written per token and v head
  //   [3] A = β·KKᵀ: k, β and g read; A written, C fp32 per token and v head
  //   [4] (I + A)⁻¹: A read (fp32) and written (e)
  //   [5] W, U: A, k, v, β, g read; W (dk) and U (dv) written per token and v head
  //   [6] recurrence: k, W, U, g read; V_new written per token; every chunk's starting
  //       state h written (dk·dv per v head, e); each sequence's state read and written
  //       (fp32) and its int32 slot
  //   [7] output: q, k, V_new, g and every chunk's h read; o written
  struct StageBytes {
    std::array<double, launches> bytes{};
    double total() const noexcept {
      double t = 0;
      for (double b : bytes) t += b;
      return t;
    }
  };
  static StageBytes stage_bytes(const Config& c, const Input& in) {
    StageBytes s;
    if (idle(in)) return s;
    const detail::GdnHeads h = heads(c);
    const double e = bytes_per_element(c.dtype), f = fp32_bytes, hv = double(h.num_v_heads);
    // One token's q (or k) over the k heads; its per-v-head rows of dk (W) and of dv (v, U,
    // V_new, o); its A row (C entries per v head); g or β (one per v head).
    const double qk = h.k_dim() * e, wk = hv * double(h.head_k_dim) * e, vv = h.v_dim() * e, a = hv * double(chunk);
    const double gate = f * hv;
    const double tokens = double(in.batch) * double(in.seq_len);
    const double chunks = double(in.batch) * double((in.seq_len + chunk - 1) / chunk);
    const double h_bytes = h.state_elements() * e;  // one chunk's starting state, all v heads
    s.bytes[0] = tokens * 2 * qk;
    s.bytes[1] = tokens * 2 * qk;
    s.bytes[2] = tokens * 2 * gate;
    s.bytes[3] = tokens * (qk + 2 * gate + f * a);
    s.bytes[4] = tokens * (f * a + e * a);
    s.bytes[5] = tokens * (e * a + qk + vv + 2 * gate + wk + vv);
    s.bytes[6] = tokens * (qk + wk + vv + gate + vv) + chunks * h_bytes +
                 double(in.batch) * (2 * fp32_bytes * h.state_elements() + 4);
    s.bytes[7] = tokens * (2 * qk + vv + gate + vv) + chunks * h_bytes;
    return s;
  }
  static double bytes(const Config& c, const Input& in) { return stage_bytes(c, in).total(); }

  // The pipeline's eight launches each pay the memory-bound floor; its bytes stream at the
  // memory-bound curve's bandwidth (the generic one: these kernels have no measured curve
  // of their own, see docs/accuracy.md "Gated DeltaNet"), timed as one stream: per launch,
  // the curve's small-transfer term would add eight times over what measured short
  // prefills show (2.7 µs a launch at seq_len 1 on H100). The recurrence [6] walks each
  // sequence's chunks one after another: every (sequence, v head, dv block of 64) is one
  // program that steps through ceil(seq_len / C) chunks, each a dependent load, two small
  // products and a store on one SM (an attention decode tile's time, decode_tile_s), in
  // waves of the SM count. So the launch takes at least that chain plus the other
  // launches' bytes; few long sequences over few heads are bound by the chain (H100 and
  // B200 both take 1.0 ms for one 32768-token sequence over 2 v heads).
  static Metrics roofline(const Roofline& rf, const Config& c, const Input& in) {
    if (idle(in)) return Metrics{};
    const StageBytes s = stage_bytes(c, in);
    const SaturatingCurve& curve = rf.params().elementwise[static_cast<std::size_t>(ElementwiseKind::generic)];
    const double bw = rf.gpu().hbm_bandwidth;
    auto stream = [&](double b) { return costdsl::detail::sat_time(b, bw, curve.eff_max, curve.sat_bytes); };
    const double programs =
        double(in.batch) * double(c.num_v_heads) * std::ceil(double(c.head_v_dim) / recurrence_v_block);
    const double waves = std::ceil(programs / rf.gpu().sm_count);
    const double chain = double((in.seq_len + chunk - 1) / chunk) * rf.params().attention.decode_tile_s * waves;
    const double total = s.total();
    const double t = double(launches) * curve.floor_s + std::max(stream(total), chain + stream(total - s.bytes[6]));
    return Metrics{t, flops(c, in), total, rf.energy_j(t, lower_bound_s(rf, c, in)), Coverage::analytic};
  }
  // The products run on the tensor cores at the activation dtype.
  static double lower_bound_s(const Roofline& rf, const Config& c, const Input& in) {
    return rf.lower_bound_s(flops(c, in), bytes(c, in), c.dtype);
  }

  // batch 1..64 × seq_len 1..32768 (powers of two, aiconfigurator's grid), up to 131072
  // tokens a launch, as measured.
  static constexpr std::uint64_t sweep_max_tokens = 131072;
  static std::vector<Input> sweep(const Config&) {
    std::vector<Input> grid;
    for (std::uint64_t b = 1; b <= 64; b *= 2)
      for (std::uint64_t l = 1; l <= 32768; l *= 2)
        if (b * l <= sweep_max_tokens) grid.push_back({b, l});
    return grid;
  }
  static std::vector<std::string> default_backends() { return {"sglang", "vllm", "trtllm"}; }

  static void validate(const Config& c) { heads(c).validate(kind, c.dtype); }
};

}  // namespace costdsl::kernels

COSTDSL_KERNEL_COMPILED_ONCE(GdnPrefill);
