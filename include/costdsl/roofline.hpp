#pragma once
// The analytic timing source: a roofline with fitted per-family efficiency curves.
//
// The caller supplies the work (flops, bytes from the kernel's own formulas) except
// for GEMMs, whose work follows from (m, n, k, dtypes); the roofline supplies time
// and energy. Every result is flagged Coverage::analytic so a tree can tell modelled
// leaves from measured ones. scripts/calibrate_roofline.py fits RooflineParams on six
// GPUs' measurements (each family also fitted on five and tested on the sixth,
// docs/accuracy.md) and writes data/roofline.json; the built-in defaults equal that
// committed fit. The fitter has no copy of these formulas: it asks `costdsl roofline
// serve` (tools/roofline_server.hpp), which times each measured row with its kernel's
// roofline(), i.e. with this class. Per-GPU figures
// (peaks, bandwidths, SM count) come from data/gpus.json; the parameters are efficiencies,
// latencies and shapes shared by every GPU.
//
// Curves shared by all families:
//   sat_time(B, bw, e, S) = B / (bw · e · (1 − exp(−B/S)))
// i.e. efficiency rises with transfer size B and saturates at e: a small transfer
// cannot keep enough requests in flight. For B → 0 it tends to S / (bw · e).
#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <string_view>

#include "costdsl/coverage.hpp"
#include "costdsl/detail/str.hpp"
#include "costdsl/dtype.hpp"
#include "costdsl/error.hpp"
#include "costdsl/gpu_spec.hpp"
#include "costdsl/metrics.hpp"
#include "costdsl/roofline_params.hpp"

namespace costdsl {

enum class CollectiveKind : std::uint8_t { all_reduce, all_gather, reduce_scatter, all_to_all, p2p };

// Bytes each GPU puts on the wire per message byte (NCCL's "bus bandwidth" factor).
constexpr double bus_factor(CollectiveKind k, int n) noexcept {
  if (n <= 1) return 0;
  const double dn = n;
  switch (k) {
    case CollectiveKind::all_reduce: return 2.0 * (dn - 1) / dn;  // ring: reduce-scatter + all-gather
    case CollectiveKind::all_gather:
    case CollectiveKind::reduce_scatter:
    case CollectiveKind::all_to_all: return (dn - 1) / dn;
    case CollectiveKind::p2p: return 1.0;
  }
  return 0;
}

namespace detail {

// B / (bw · e · (1 − exp(−B/S))); 0 for no bytes.
inline double sat_time(double bytes, double bw, double eff_max, double sat_bytes) noexcept {
  if (!(bytes > 0)) return 0;
  return bytes / (bw * eff_max * -std::expm1(-bytes / sat_bytes));
}

// (a^p + b^p)^(1/p): compute and memory overlap imperfectly in a real kernel. Written as
// hi·(1 + (lo/hi)^p)^(1/p): the larger term's pow is pow(1, p), exactly 1 for every p,
// so skipping it changes no bit and saves a third of the libm calls (a tenth of
// serve_sim's time on roofline leaves).
inline double smooth_max(double a, double b, double p) noexcept {
  const double hi = std::max(a, b);
  if (!(hi > 0)) return 0;
  const double lo = a < b ? a : b;
  return hi * std::pow(1.0 + std::pow(lo / hi, p), 1.0 / p);
}

}  // namespace detail

// One attention launch as the roofline sees it (per rank): `requests` sequences, each
// with `prefix` cached keys and `append` new query rows (decode: prefix = the KV length,
// append = 1). kv_heads = 1 for MLA's shared latent.
struct AttentionShape {
  double requests = 0;
  double prefix = 0;
  double append = 0;
  double qo_heads = 1;
  double kv_heads = 1;
  double qk_dim = 128;  // dims of the q·k dot product and of v
  double v_dim = 128;
  Dtype compute = Dtype::bf16;
  double window = 0;  // prefill: a sliding window's reach in keys (0 = full causal)
};

// FlashAttention's tile: query rows × key columns per block.
inline constexpr double attention_tile_q = 128;
inline constexpr double attention_tile_k = 128;

// Which fabric a point-to-point transfer crosses.
enum class Link : std::uint8_t { intra_node, inter_node };

class Roofline {
 public:
  // Tile shapes the GEMM model picks from (the best one, as a cuBLAS heuristic would).
  // Hopper wgmma needs tile_m >= 64, so m = 1 decode GEMMs pad to 64 rows.
  static constexpr std::array<std::array<double, 2>, 4> gemm_tiles{{{128, 256}, {128, 128}, {64, 256}, {64, 128}}};
  // Split-K only while every split keeps at least this much k.
  static constexpr double split_k_min_k = 512;

  Roofline(const GpuSpec& gpu, const RooflineParams& params) : gpu_(gpu), p_(params) {
    for (Dtype d : all_dtypes) peak_[static_cast<std::size_t>(d)] = peak_or_zero(d);
  }

  const GpuSpec& gpu() const noexcept { return gpu_; }
  const RooflineParams& params() const noexcept { return p_; }

  // Y[m,n] = X[m,k] · W[n,k]^T. Tensor cores run at the wider operand's rate (a bf16×fp8
  // weight-only GEMM dequantizes to bf16). bytes = a·mk + w·nk + out·mn.
  //   t = smooth_max(t_compute, t_memory) + floor
  //   t_compute = min over tiles of waves · 2·tm·tn·(k_split + k_overhead) / (peak/SMs · eff)
  //   t_memory  = sat_time(bytes, hbm_bw, gemm.memory)
  Metrics gemm(double m, double n, double k, Dtype a, Dtype w, Dtype out) const {
    check_dims(m, n, k, "gemm");
    if (m == 0 || n == 0 || k == 0) return Metrics{};
    const Dtype cd = compute_dtype(a, w);
    const double tc = gemm_compute_time(m, n, k, 1, cd);
    const double bytes = bytes_per_element(a) * m * k + bytes_per_element(w) * n * k + bytes_per_element(out) * m * n;
    return finish(gemm_combine(tc, bytes), 2 * m * n * k, bytes, gpu_.peak_flops(cd), gpu_.hbm_bandwidth);
  }

  // `groups` GEMMs of the same n, k (MoE experts), tokens spread evenly: each group has
  // its own tiles (a group's last tile is padded) and its own weight read.
  Metrics grouped_gemm(double total_m, double n, double k, int groups, Dtype a, Dtype w, Dtype out) const {
    check_dims(total_m, n, k, "grouped_gemm");
    if (groups <= 0) throw InputError(detail::str("grouped_gemm: groups must be > 0, got ", groups));
    if (total_m == 0 || n == 0 || k == 0) return Metrics{};
    const Dtype cd = compute_dtype(a, w);
    const double g = groups;
    const double tc = gemm_compute_time(total_m / g, n, k, g, cd);
    const double bytes = bytes_per_element(a) * total_m * k + bytes_per_element(w) * g * n * k +
                         bytes_per_element(out) * total_m * n;
    return finish(gemm_combine(tc, bytes), 2 * total_m * n * k, bytes, gpu_.peak_flops(cd), gpu_.hbm_bandwidth);
  }

  // Uneven routing: one m per group (groups with m = 0 read no weights: skipped experts).
  Metrics grouped_gemm(std::span<const double> m_per_group, double n, double k, Dtype a, Dtype w, Dtype out) const {
    const Dtype cd = compute_dtype(a, w);
    double tiles_time = 0, total_m = 0, active = 0;
    for (double m : m_per_group) {
      check_dims(m, n, k, "grouped_gemm");
      if (m == 0) continue;
      total_m += m;
      active += 1;
    }
    if (active == 0 || n == 0 || k == 0) return Metrics{};
    // One persistent launch: the groups' tiles share the waves, so sum each group's
    // fractional waves (no per-group wave quantisation; each group still pads its tiles).
    for (double m : m_per_group)
      if (m > 0) tiles_time += gemm_compute_time(m, n, k, 1, cd, /*fractional_waves=*/true);
    const double tc = tiles_time;
    const double bytes = bytes_per_element(a) * total_m * k + bytes_per_element(w) * active * n * k +
                         bytes_per_element(out) * total_m * n;
    return finish(gemm_combine(tc, bytes), 2 * total_m * n * k, bytes, gpu_.peak_flops(cd), gpu_.hbm_bandwidth);
  }

  // Norms, activations, rope, embedding, kv append, quantization:
  //   t = sat_time(bytes, hbm_bw, curve[kind]) + curve[kind].floor
  // `flops` is reported as work only (they run far below the FP32 roof).
  Metrics memory_bound(double flops, double bytes, ElementwiseKind kind = ElementwiseKind::generic) const {
    check_work(flops, bytes, "memory_bound");
    if (bytes == 0 && flops == 0) return Metrics{};
    const auto& c = p_.elementwise[static_cast<std::size_t>(kind)];
    const double t = detail::sat_time(bytes, gpu_.hbm_bandwidth, c.eff_max, c.sat_bytes) + c.floor_s;
    return finish(t, flops, bytes, peak_or_zero(Dtype::fp32), gpu_.hbm_bandwidth);
  }

  // Prefill of `requests` sequences in one launch, each appending `append` query rows to
  // `prefix` cached keys (causal). FlashAttention-class kernels pack the g = qo/kv query
  // heads that share a KV head into the rows of one Tq-row tile, so each (request, KV
  // head) runs T = ceil(append·g / Tq) query tiles; query tile i attends to the prefix
  // plus the keys up to its last row, in Tk-wide blocks. On the average tile:
  //   blocks = T · ceil((prefix + k̄) / Tk),  k̄ = min(append, (Tq/g)·(T+1)/2)
  //   tiled flops = requests · kv · blocks · Tq·Tk · 2·(qk_dim + v_dim)
  //   t_c = tiled flops / (peak · eff) (with fewer tiles than SMs: the average tile's
  //         blocks serially on one SM), plus tiles · prefill_tile_s / SMs
  //   t_m = sat_time(bytes, hbm_bw, eff_mem, mem_sat_bytes)
  //   t   = floor + smooth_max(t_c, t_m)
  // so a batch of many short prefills pays for its padded tiles and per-tile work, not
  // for one long sequence's quadratic term.
  Metrics attention_prefill(const AttentionShape& s, double flops, double bytes) const {
    check_shape(s, flops, bytes, "attention_prefill");
    if (s.requests == 0 || s.append == 0) return Metrics{};
    const auto& a = p_.attention;
    const double sms = gpu_.sm_count, peak = gpu_.peak_flops(s.compute);
    const double eff = s.compute == Dtype::fp8 ? a.eff_compute_prefill_fp8 : a.eff_compute_prefill;
    const double g = s.qo_heads / s.kv_heads;
    const double tiles_per_head = std::ceil(s.append * g / attention_tile_q);
    const double keys = std::min(s.append, attention_tile_q / g * (tiles_per_head + 1) / 2);
    // A sliding window skips the key blocks out of reach: a query tile of Tq / g tokens
    // spans at most window + Tq / g keys.
    const double span = s.window > 0 ? std::min(s.prefix + keys, s.window + attention_tile_q / g) : s.prefix + keys;
    const double blocks = tiles_per_head * std::ceil(span / attention_tile_k);
    const double tiles = s.requests * s.kv_heads * tiles_per_head;
    const double block_flops = attention_tile_q * attention_tile_k * 2 * (s.qk_dim + s.v_dim);
    double tc = s.requests * s.kv_heads * blocks * block_flops / (peak * eff);
    // Fewer tiles than SMs: each tile has an SM to itself; the average tile's blocks run serially.
    if (tiles < sms) tc = std::max(tc, blocks / tiles_per_head * block_flops / (peak / sms * eff));
    tc += tiles * a.prefill_tile_s / sms;
    const double tm = detail::sat_time(bytes, gpu_.hbm_bandwidth, a.eff_mem, a.mem_sat_bytes);
    return finish(a.floor_s + detail::smooth_max(tc, tm, a.overlap_p), flops, bytes, peak, gpu_.hbm_bandwidth);
  }

  // One decode step of `requests` sequences, KV length `prefix` each (the average): each
  // (request, KV head) is a work tile of ceil(g / Tq) query tiles that streams its KV;
  // small-KV steps are bound by the tiles, long-KV steps by the KV bytes:
  //   t_tiles = requests · kv · ceil(g / Tq) · decode_tile_s / SMs
  //   t_m     = sat_time(bytes, hbm_bw, eff_mem, mem_sat_bytes),  t_f = flops / (peak · eff)
  //   t       = floor + smooth_max(max(t_m, t_f), t_tiles)
  Metrics attention_decode(const AttentionShape& s, double flops, double bytes) const {
    check_shape(s, flops, bytes, "attention_decode");
    if (s.requests == 0 || (flops == 0 && bytes == 0)) return Metrics{};
    const auto& a = p_.attention;
    const double peak = gpu_.peak_flops(s.compute);
    const double g = s.qo_heads / s.kv_heads;
    const double tiles = s.requests * s.kv_heads * std::ceil(g / attention_tile_q);
    const double t_tiles = tiles * a.decode_tile_s / gpu_.sm_count;
    const double tm = std::max(detail::sat_time(bytes, gpu_.hbm_bandwidth, a.eff_mem, a.mem_sat_bytes),
                               flops / (peak * a.eff_compute_prefill));
    return finish(a.floor_s + detail::smooth_max(tm, t_tiles, a.overlap_p), flops, bytes, peak, gpu_.hbm_bandwidth);
  }

  // Alpha-beta model. Bus bytes = bus_factor(kind, n) · message, moving at NVLink within a
  // node and, across nodes, at the bandwidth NCCL's topology gives them (bus_bandwidth).
  //   t = α(n) + sat_time(bus bytes, bus bw, collective curve),  α(n) = α0 + α1·log2 n
  // p2p: message over the link implied by num_gpus (the span of GPUs the pair lives in);
  // see also p2p(bytes, Link). Only all_reduce (one node) and p2p are calibrated.
  Metrics collective(CollectiveKind kind, double message_bytes, int num_gpus) const {
    if (!(message_bytes >= 0) || !std::isfinite(message_bytes))
      throw InputError(detail::str("collective: message_bytes must be finite and >= 0, got ", message_bytes));
    if (num_gpus < 1) throw InputError(detail::str("collective: num_gpus must be >= 1, got ", num_gpus));
    if (kind == CollectiveKind::p2p)
      return p2p(message_bytes, num_gpus <= gpu_.gpus_per_node ? Link::intra_node : Link::inter_node);
    if (num_gpus == 1 || message_bytes == 0) return Metrics{};
    const double bw = bus_bandwidth(kind, num_gpus);
    const double bus = bus_factor(kind, num_gpus) * message_bytes;
    double t = nccl_time(kind, bus, num_gpus);
    if (kind == CollectiveKind::all_reduce) t = std::min(t, custom_all_reduce_time(message_bytes, num_gpus));
    return finish(t, 0, bus, 0, bw);
  }

  // The all-reduce of one backend: NCCL's ring, or the framework's custom all-reduce,
  // which is +inf (no such path) past its buffer size or GPU count. collective() takes
  // the faster of the two, as the frameworks do.
  double nccl_all_reduce_s(double message_bytes, int num_gpus) const {
    if (num_gpus <= 1 || !(message_bytes > 0)) return 0;
    return nccl_time(CollectiveKind::all_reduce, bus_factor(CollectiveKind::all_reduce, num_gpus) * message_bytes,
                     num_gpus);
  }
  double custom_all_reduce_s(double message_bytes, int num_gpus) const {
    if (num_gpus <= 1 || !(message_bytes > 0)) return 0;
    return custom_all_reduce_time(message_bytes, num_gpus);
  }

  // One send/recv pair: t = α_link + sat_time(bytes, link bw, p2p curve).
  Metrics p2p(double bytes, Link link) const {
    if (!(bytes >= 0) || !std::isfinite(bytes))
      throw InputError(detail::str("p2p: bytes must be finite and >= 0, got ", bytes));
    if (bytes == 0) return Metrics{};
    const bool intra = link == Link::intra_node;
    const auto& c = intra ? p_.p2p_intra_node : p_.p2p_inter_node;
    const double bw = intra ? gpu_.intra_node_bandwidth : gpu_.inter_node_bandwidth;
    return finish(c.alpha_s + detail::sat_time(bytes, bw, c.eff_max, c.sat_bytes), 0, bytes, 0, bw);
  }

  // Pure hardware bound for "where the time goes": work at peak FLOP/s and full HBM
  // bandwidth, no efficiency, no floor, no overlap penalty.
  // Every measured leaf's energy estimate asks for it, each iteration: the peaks are
  // looked up in a table filled at construction, not through GpuSpec's checked switch.
  double lower_bound_s(double flops, double bytes, Dtype compute) const {
    const double peak = peak_[static_cast<std::size_t>(compute)];
    if (!(peak > 0)) [[unlikely]]
      return std::max(flops / gpu_.peak_flops(compute), bytes / gpu_.hbm_bandwidth);  // throws: no such path
    return std::max(flops / peak, bytes / gpu_.hbm_bandwidth);
  }
  // A collective's bus bytes at the full link bandwidth, no latency.
  double collective_lower_bound_s(CollectiveKind kind, double message_bytes, int num_gpus) const {
    if (kind == CollectiveKind::p2p)
      return message_bytes / (num_gpus <= gpu_.gpus_per_node ? gpu_.intra_node_bandwidth : gpu_.inter_node_bandwidth);
    return bus_factor(kind, num_gpus) * message_bytes / bus_bandwidth(kind, num_gpus);
  }

  // Energy of a kernel that took t seconds and whose hardware bound is bound_s:
  // activity = bound_s / t (the fraction of the roof it reached), as in finish().
  // Written as P·(idle·t + (1 − idle)·clamp(bound_s, 0, t)): the same figure without
  // the divide (it runs once per measured leaf per iteration).
  double energy_j(double t, double bound_s) const noexcept {
    if (!(t > 0)) return 0;
    const double idle = p_.energy.idle_power_fraction;
    return gpu_.board_power_w * (idle * t + (1 - idle) * std::min(std::max(bound_s, 0.0), t));
  }

  // The tensor-core dtype a GEMM runs at: the wider operand.
  static constexpr Dtype compute_dtype(Dtype a, Dtype w) noexcept {
    return bytes_per_element(a) >= bytes_per_element(w) ? a : w;
  }

 private:
  static void check_dims(double m, double n, double k, std::string_view what) {
    if (!(m >= 0 && n >= 0 && k >= 0) || !std::isfinite(m + n + k))
      throw InputError(detail::str(what, ": dims must be finite and >= 0, got m=", m, " n=", n, " k=", k));
  }
  static void check_work(double flops, double bytes, std::string_view what) {
    if (!(flops >= 0 && bytes >= 0) || !std::isfinite(flops + bytes))
      throw InputError(detail::str(what, ": flops and bytes must be finite and >= 0, got ", flops, " and ", bytes));
  }

  // The bandwidth a collective's bus bytes move at, per GPU. Within a node, NVLink. Across
  // nodes every GPU has its own NIC (inter_node_bandwidth is per GPU) and NCCL runs one ring
  // (channel) per NIC, so a ring's bytes leave each of its nodes through all g =
  // gpus_per_node NICs at once while NVLink carries the in-node hops: a ring collective
  // (all-reduce, all-gather, reduce-scatter) moves at min(NVLink, g · NIC), not at one NIC's
  // rate. An all-to-all sends the (n − g)/n of each GPU's data bound off-node through that
  // GPU's NIC while the (g − 1)/n bound in-node cross NVLink at the same time: its (n − 1)/n
  // bus bytes take the longer of the two.
  double bus_bandwidth(CollectiveKind kind, int num_gpus) const noexcept {
    const double nvlink = gpu_.intra_node_bandwidth, nic = gpu_.inter_node_bandwidth;
    if (num_gpus <= gpu_.gpus_per_node) return nvlink;
    const double n = num_gpus, g = gpu_.gpus_per_node;
    if (kind == CollectiveKind::all_to_all) return (n - 1) / std::max((n - g) / nic, (g - 1) / nvlink);
    return std::min(nvlink, g * nic);
  }
  double peak_or_zero(Dtype d) const noexcept { return gpu_.supports(d) ? gpu_.peak_flops(d) : 0; }

  // Wave-quantised tile time of `groups` identical GEMMs (m×n×k each), best tile.
  // fractional_waves: the caller sums several groups sharing one launch.
  double gemm_compute_time(double m, double n, double k, double groups, Dtype cd, bool fractional_waves = false) const {
    const double sms = gpu_.sm_count;
    const double per_sm = gpu_.peak_flops(cd) / sms;
    const double eff_c = p_.gemm.eff_compute[static_cast<std::size_t>(cd)];
    double best = std::numeric_limits<double>::infinity();
    for (const auto& [tm, tn] : gemm_tiles) {
      const double tiles = groups * std::ceil(m / tm) * std::ceil(n / tn);
      double split = 1;
      if (tiles < sms) split = std::max(1.0, std::min(std::floor(sms / tiles), std::floor(k / split_k_min_k)));
      const double waves = fractional_waves ? tiles * split / sms : std::ceil(tiles * split / sms);
      const double eff = eff_c * (tm == 64 ? p_.gemm.eff_tile_m64 : 1.0);
      best = std::min(best, waves * 2 * tm * tn * (k / split + p_.gemm.k_overhead) / (per_sm * eff));
    }
    return best;
  }
  double gemm_combine(double t_compute, double bytes) const noexcept {
    const auto& mc = p_.gemm.memory;
    const double tm = detail::sat_time(bytes, gpu_.hbm_bandwidth, mc.eff_max, mc.sat_bytes);
    return detail::smooth_max(t_compute, tm, p_.gemm.overlap_p) + mc.floor_s;
  }

  static void check_shape(const AttentionShape& s, double flops, double bytes, std::string_view what) {
    check_work(flops, bytes, what);
    const bool ok = s.requests >= 0 && s.prefix >= 0 && s.append >= 0 && s.qo_heads >= 1 && s.kv_heads >= 1 &&
                    s.qk_dim >= 1 && s.v_dim >= 1 &&
                    std::isfinite(s.requests + s.prefix + s.append + s.qo_heads + s.kv_heads + s.qk_dim + s.v_dim);
    if (!ok)
      throw InputError(detail::str(what, ": shape must be finite with requests, prefix, append >= 0 and heads, ",
                                   "dims >= 1; got requests=", s.requests, " prefix=", s.prefix, " append=", s.append,
                                   " qo_heads=", s.qo_heads, " kv_heads=", s.kv_heads, " qk_dim=", s.qk_dim,
                                   " v_dim=", s.v_dim));
  }

  // α(n) + sat_time(bus bytes, link bw, collective curve).
  double nccl_time(CollectiveKind kind, double bus_bytes, int num_gpus) const {
    const auto& c = p_.collective;
    return c.alpha_s + c.alpha_per_log2_s * std::log2(static_cast<double>(num_gpus)) +
           detail::sat_time(bus_bytes, bus_bandwidth(kind, num_gpus), c.eff_max, c.sat_bytes);
  }
  // α_c + α_g·n + sat_time(ring bus bytes, NVLink bw, custom curve); +inf outside its range.
  double custom_all_reduce_time(double message_bytes, int num_gpus) const {
    const auto& c = p_.custom_all_reduce;
    if (message_bytes > c.max_bytes || num_gpus > c.max_gpus || num_gpus > gpu_.gpus_per_node)
      return std::numeric_limits<double>::infinity();
    const double bus = bus_factor(CollectiveKind::all_reduce, num_gpus) * message_bytes;
    return c.alpha_s + c.alpha_per_gpu_s * num_gpus +
           detail::sat_time(bus, gpu_.intra_node_bandwidth, c.eff_max, c.sat_bytes);
  }

  // Energy = t · board power · (idle + (1 − idle) · activity).
  Metrics finish(double t, double flops, double bytes, double peak, double bw) const noexcept {
    Metrics r;
    r.time_s = t;
    r.flops = flops;
    r.bytes = bytes;
    double activity = 0;
    if (t > 0) {
      if (peak > 0) activity = std::max(activity, flops / (peak * t));
      if (bw > 0) activity = std::max(activity, bytes / (bw * t));
    }
    activity = std::min(activity, 1.0);
    const double idle = p_.energy.idle_power_fraction;
    r.energy_j = t * gpu_.board_power_w * (idle + (1 - idle) * activity);
    r.coverage = Coverage::analytic;
    return r;
  }

  GpuSpec gpu_;  // by value: a Roofline outlives the catalog it came from
  RooflineParams p_;
  std::array<double, all_dtypes.size()> peak_{};  // peak FLOP/s per Dtype, 0 where the GPU has no path
};

}  // namespace costdsl
