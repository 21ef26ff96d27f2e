// costdsl's own attention kernels (backend "costdsl_cuda"), straightforward but on the
// tensor cores where it matters:
//  - prefill: causal GQA flash attention of one chunk over its cached prefix
//    (wmma bf16 16×16×16 tiles, fp32 softmax state, one 64-row query tile per block);
//  - decode: paged-KV GQA split-KV attention (flash-decoding style: each block scans a
//    slice of one request's pages for one KV head, a second kernel merges the slices).
// head_dim 128 only (what the built-in shapes use); bf16 storage.
#include <mma.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "../reference.hpp"
#include "common.cuh"
#include "kinds.cuh"

namespace costdsl_prof::cuda {

namespace {

using namespace nvcuda;

constexpr int HD = 128;
constexpr float log2e = 1.4426950408889634f;

// ---------------------------------------------------------------- prefill
constexpr int BQ = 64, BK = 64, PF_WARPS = 4, PF_THREADS = PF_WARPS * 32;
constexpr int LDQ = HD + 8;   // bf16, padded against bank conflicts (wmma: ldm % 8 == 0)
constexpr int LDS = BK + 4;   // fp32 scores (ldm % 4 == 0)
constexpr int LDP = BK + 8;   // bf16 probabilities
constexpr int LDO = HD + 4;   // fp32 output accumulators
constexpr std::size_t pf_smem_bytes = sizeof(__nv_bfloat16) * (3 * BQ * LDQ) + sizeof(float) * (PF_WARPS * 16 * LDS) +
                                      sizeof(__nv_bfloat16) * (PF_WARPS * 16 * LDP) +
                                      sizeof(float) * (PF_WARPS * 16 * LDO);
static_assert(BQ == BK, "the Q, K and V tiles share one layout");

// Loads `rows` rows of HD bf16 from src (row r at src + r·stride) into a padded tile;
// rows at or beyond `valid` are zero. 16-byte accesses.
__device__ __forceinline__ void load_tile(__nv_bfloat16* tile, const __nv_bfloat16* src, std::int64_t stride,
                                          int valid) {
  constexpr int vecs = HD / 8;
  for (int i = threadIdx.x; i < BQ * vecs; i += PF_THREADS) {
    const int r = i / vecs, c = i % vecs;
    uint4 v = make_uint4(0, 0, 0, 0);
    if (r < valid) v = *reinterpret_cast<const uint4*>(src + std::int64_t(r) * stride + c * 8);
    *reinterpret_cast<uint4*>(tile + r * LDQ + c * 8) = v;
  }
}

// grid (ceil(append / BQ), qo heads); q [append][qo][HD], k/v [prefix+append][kv][HD],
// o [append][qo][HD].
__global__ void __launch_bounds__(PF_THREADS) prefill_kernel(const __nv_bfloat16* __restrict__ q,
                                                             const __nv_bfloat16* __restrict__ k,
                                                             const __nv_bfloat16* __restrict__ v,
                                                             __nv_bfloat16* __restrict__ o, int prefix, int append,
                                                             int qo, int kv, float scale_log2) {
  extern __shared__ __align__(128) unsigned char smem[];
  __nv_bfloat16* sQ = reinterpret_cast<__nv_bfloat16*>(smem);
  __nv_bfloat16* sK = sQ + BQ * LDQ;
  __nv_bfloat16* sV = sK + BK * LDQ;
  float* sS = reinterpret_cast<float*>(sV + BK * LDQ);
  __nv_bfloat16* sP = reinterpret_cast<__nv_bfloat16*>(sS + PF_WARPS * 16 * LDS);
  float* sO = reinterpret_cast<float*>(sP + PF_WARPS * 16 * LDP);

  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const int h = blockIdx.y, kh = h / (qo / kv);
  const int q0 = blockIdx.x * BQ;
  const int kv_len = prefix + append;
  const int q_rows = min(BQ, append - q0);
  // Keys the last query row of this tile can see.
  const int k_end = min(kv_len, prefix + q0 + q_rows);

  float* wS = sS + warp * 16 * LDS;
  __nv_bfloat16* wP = sP + warp * 16 * LDP;
  float* wO = sO + warp * 16 * LDO;

  load_tile(sQ, q + (std::int64_t(q0) * qo + h) * HD, std::int64_t(qo) * HD, q_rows);
  for (int i = lane; i < 16 * LDO; i += 32) wO[i] = 0.0f;

  // Lane pair (2r, 2r+1) owns row r of the warp's 16 rows: columns half·32.. of the
  // scores, half·(HD/2).. of the output.
  const int row = lane >> 1, half = lane & 1;
  const int qpos = prefix + q0 + warp * 16 + row;  // absolute position of this query row
  float m = -1e30f, l = 0.0f;

  for (int k0 = 0; k0 < k_end; k0 += BK) {
    __syncthreads();  // the previous tile's K and V are no longer read
    const int k_rows = min(BK, kv_len - k0);
    load_tile(sK, k + (std::int64_t(k0) * kv + kh) * HD, std::int64_t(kv) * HD, k_rows);
    load_tile(sV, v + (std::int64_t(k0) * kv + kh) * HD, std::int64_t(kv) * HD, k_rows);
    __syncthreads();

    // S = Q_w · K^T (16 × BK)
#pragma unroll
    for (int nt = 0; nt < BK / 16; ++nt) {
      wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
      wmma::fill_fragment(acc, 0.0f);
#pragma unroll
      for (int kt = 0; kt < HD / 16; ++kt) {
        wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> a;
        wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::col_major> b;
        wmma::load_matrix_sync(a, sQ + warp * 16 * LDQ + kt * 16, LDQ);
        wmma::load_matrix_sync(b, sK + nt * 16 * LDQ + kt * 16, LDQ);  // K row-major = K^T col-major
        wmma::mma_sync(acc, a, b, acc);
      }
      wmma::store_matrix_sync(wS + nt * 16, acc, LDS, wmma::mem_row_major);
    }
    __syncwarp();

    // Online softmax over this tile (base-2 exponent, scale folded in).
    float s[32];
    float tile_max = -INFINITY;
#pragma unroll
    for (int j = 0; j < 32; ++j) {
      const int key = k0 + half * 32 + j;
      float x = wS[row * LDS + half * 32 + j] * scale_log2;
      if (key > qpos || key >= kv_len) x = -INFINITY;
      s[j] = x;
      tile_max = fmaxf(tile_max, x);
    }
    tile_max = fmaxf(tile_max, __shfl_xor_sync(0xffffffffu, tile_max, 1));
    const float m_new = fmaxf(m, tile_max);
    const float alpha = exp2f(m - m_new);
    float sum = 0.0f;
#pragma unroll
    for (int j = 0; j < 32; ++j) {
      const float p = exp2f(s[j] - m_new);
      const __nv_bfloat16 pb = __float2bfloat16_rn(p);
      sum += __bfloat162float(pb);  // the normaliser sums what the PV product uses
      wP[row * LDP + half * 32 + j] = pb;
    }
    sum += __shfl_xor_sync(0xffffffffu, sum, 1);
    l = l * alpha + sum;
    m = m_new;
#pragma unroll 8
    for (int d = 0; d < HD / 2; ++d) wO[row * LDO + half * (HD / 2) + d] *= alpha;
    __syncwarp();

    // O_w += P_w · V (16 × HD)
#pragma unroll
    for (int dt = 0; dt < HD / 16; ++dt) {
      wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
      wmma::load_matrix_sync(acc, wO + dt * 16, LDO, wmma::mem_row_major);
#pragma unroll
      for (int kt = 0; kt < BK / 16; ++kt) {
        wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> a;
        wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::row_major> b;
        wmma::load_matrix_sync(a, wP + kt * 16, LDP);
        wmma::load_matrix_sync(b, sV + kt * 16 * LDQ + dt * 16, LDQ);
        wmma::mma_sync(acc, a, b, acc);
      }
      wmma::store_matrix_sync(wO + dt * 16, acc, LDO, wmma::mem_row_major);
    }
    __syncwarp();
  }

  const int r = warp * 16 + row;
  if (r < q_rows) {
    const float inv = l > 0 ? 1.0f / l : 0.0f;
    __nv_bfloat16* dst = o + (std::int64_t(q0 + r) * qo + h) * HD + half * (HD / 2);
    const float* src = wO + row * LDO + half * (HD / 2);
    for (int d = 0; d < HD / 2; d += 2)
      *reinterpret_cast<__nv_bfloat162*>(dst + d) = __floats2bfloat162_rn(src[d] * inv, src[d + 1] * inv);
  }
}

void launch_prefill(const __nv_bfloat16* q, const __nv_bfloat16* k, const __nv_bfloat16* v, __nv_bfloat16* o,
                    int prefix, int append, int qo, int kv, cudaStream_t s) {
  static bool configured = false;
  if (!configured) {
    CP_CHECK(cudaFuncSetAttribute(prefill_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(pf_smem_bytes)));
    configured = true;
  }
  const dim3 grid(unsigned((append + BQ - 1) / BQ), unsigned(qo));
  prefill_kernel<<<grid, PF_THREADS, pf_smem_bytes, s>>>(q, k, v, o, prefix, append, qo, kv,
                                                         log2e / std::sqrt(float(HD)));
  CP_CHECK_LAUNCH();
}

// ---------------------------------------------------------------- decode
constexpr int PAGE = 16, DC_THREADS = 128, DC_GROUPS = DC_THREADS / 16;  // 16 lanes per token

// grid (splits, kv heads, batch). Each 16-lane group scans tokens start+g, start+g+8, …
// of its slice; lane sub holds dims sub·8..sub·8+7. Writes unnormalised partials:
// part_o [batch][kv][G][splits][HD], part_ml [batch][kv][G][splits][2].
template <int G>
__global__ void __launch_bounds__(DC_THREADS) decode_split_kernel(
    const __nv_bfloat16* __restrict__ q, const __nv_bfloat16* __restrict__ k_cache,
    const __nv_bfloat16* __restrict__ v_cache, const std::int32_t* __restrict__ block_table,
    const std::int32_t* __restrict__ kv_len, float* __restrict__ part_o, float* __restrict__ part_ml, int kv,
    int max_pages, int splits, float scale_log2) {
  __shared__ float s_o[DC_GROUPS][G][HD];
  __shared__ float s_m[DC_GROUPS][G], s_l[DC_GROUPS][G];
  const int split = blockIdx.x, kh = blockIdx.y, b = blockIdx.z;
  const int group = threadIdx.x >> 4, sub = threadIdx.x & 15;
  const int len = kv_len[b];
  const int chunk = (len + splits - 1) / splits;
  const int start = split * chunk, end = min(len, start + chunk);
  const int qo = kv * G;

  float qf[G][8];
#pragma unroll
  for (int g = 0; g < G; ++g) {
    const uint4 raw = *reinterpret_cast<const uint4*>(q + (std::int64_t(b) * qo + kh * G + g) * HD + sub * 8);
    const __nv_bfloat162* p = reinterpret_cast<const __nv_bfloat162*>(&raw);
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      const float2 f = __bfloat1622float2(p[j]);
      qf[g][2 * j] = f.x * scale_log2;
      qf[g][2 * j + 1] = f.y * scale_log2;
    }
  }
  float m[G], l[G], acc[G][8];
#pragma unroll
  for (int g = 0; g < G; ++g) {
    m[g] = -1e30f;
    l[g] = 0.0f;
#pragma unroll
    for (int j = 0; j < 8; ++j) acc[g][j] = 0.0f;
  }

  const std::int32_t* table = block_table + std::int64_t(b) * max_pages;
  // The two 16-lane groups of a warp run different trip counts when the slice is not a
  // multiple of DC_GROUPS tokens, so the score reduction names only this group's lanes: a
  // full-warp mask waits for lanes that never arrive (the first H200 run hung in the self-
  // check on its 37-token request).
  const unsigned half_mask = 0xffffu << (threadIdx.x & 16);
  for (int t = start + group; t < end; t += DC_GROUPS) {
    const std::int64_t slot = std::int64_t(table[t / PAGE]) * PAGE + t % PAGE;
    const std::int64_t off = (slot * kv + kh) * HD + sub * 8;
    const uint4 kraw = *reinterpret_cast<const uint4*>(k_cache + off);
    const uint4 vraw = *reinterpret_cast<const uint4*>(v_cache + off);
    float kf[8], vf[8];
    const __nv_bfloat162* kp = reinterpret_cast<const __nv_bfloat162*>(&kraw);
    const __nv_bfloat162* vp = reinterpret_cast<const __nv_bfloat162*>(&vraw);
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      const float2 a = __bfloat1622float2(kp[j]), c = __bfloat1622float2(vp[j]);
      kf[2 * j] = a.x, kf[2 * j + 1] = a.y, vf[2 * j] = c.x, vf[2 * j + 1] = c.y;
    }
#pragma unroll
    for (int g = 0; g < G; ++g) {
      float sc = 0.0f;
#pragma unroll
      for (int j = 0; j < 8; ++j) sc += qf[g][j] * kf[j];
#pragma unroll
      for (int o = 8; o > 0; o >>= 1) sc += __shfl_xor_sync(half_mask, sc, o);  // within the 16 lanes
      const float m_new = fmaxf(m[g], sc);
      const float alpha = exp2f(m[g] - m_new), p = exp2f(sc - m_new);
      l[g] = l[g] * alpha + p;
#pragma unroll
      for (int j = 0; j < 8; ++j) acc[g][j] = acc[g][j] * alpha + p * vf[j];
      m[g] = m_new;
    }
  }

  // Merge the 8 token groups of the block.
#pragma unroll
  for (int g = 0; g < G; ++g) {
#pragma unroll
    for (int j = 0; j < 8; ++j) s_o[group][g][sub * 8 + j] = acc[g][j];
    if (sub == 0) s_m[group][g] = m[g], s_l[group][g] = l[g];
  }
  __syncthreads();
  for (int i = threadIdx.x; i < G * HD; i += DC_THREADS) {
    const int g = i / HD, d = i % HD;
    float mm = -1e30f;
    for (int x = 0; x < DC_GROUPS; ++x) mm = fmaxf(mm, s_m[x][g]);
    float ll = 0.0f, oo = 0.0f;
    for (int x = 0; x < DC_GROUPS; ++x) {
      const float w = exp2f(s_m[x][g] - mm);
      ll += s_l[x][g] * w;
      oo += s_o[x][g][d] * w;
    }
    const std::int64_t cell = ((std::int64_t(b) * kv + kh) * G + g) * splits + split;
    part_o[cell * HD + d] = oo;
    if (d == 0) part_ml[2 * cell] = mm, part_ml[2 * cell + 1] = ll;
  }
}

// grid (qo heads, batch), HD threads: merges the splits and writes o [batch][qo][HD].
__global__ void decode_merge_kernel(const float* __restrict__ part_o, const float* __restrict__ part_ml,
                                    __nv_bfloat16* __restrict__ o, int qo, int splits) {
  const int h = blockIdx.x, b = blockIdx.y, d = threadIdx.x;
  const std::int64_t base = (std::int64_t(b) * qo + h) * splits;  // == ((b·kv + kh)·G + g)·splits
  float mm = -1e30f;
  for (int s = 0; s < splits; ++s) mm = fmaxf(mm, part_ml[2 * (base + s)]);
  float ll = 0.0f, oo = 0.0f;
  for (int s = 0; s < splits; ++s) {
    const float w = exp2f(part_ml[2 * (base + s)] - mm);
    ll += part_ml[2 * (base + s) + 1] * w;
    oo += part_o[(base + s) * HD + d] * w;
  }
  o[(std::int64_t(b) * qo + h) * HD + d] = __float2bfloat16_rn(ll > 0 ? oo / ll : 0.0f);
}

// Slices per (request, KV head): enough blocks for ~2 waves, slices of >= 256 tokens.
int decode_splits(int batch, int kv, int max_len, int sm_count) {
  const int want = std::max(1, (2 * sm_count + batch * kv - 1) / (batch * kv));
  return std::clamp(std::min(want, (max_len + 255) / 256), 1, 64);
}

struct DecodeArgs {
  const __nv_bfloat16 *q, *k_cache, *v_cache;
  const std::int32_t *block_table, *kv_len;
  float *part_o, *part_ml;
  __nv_bfloat16* o;
  int batch, qo, kv, max_pages, splits;
};

void launch_decode(const DecodeArgs& a, cudaStream_t s) {
  const int G = a.qo / a.kv;
  const dim3 grid(unsigned(a.splits), unsigned(a.kv), unsigned(a.batch));
  const float sl2 = log2e / std::sqrt(float(HD));
  switch (G) {
#define CP_DECODE_CASE(g)                                                                                     \
  case g:                                                                                                     \
    decode_split_kernel<g><<<grid, DC_THREADS, 0, s>>>(a.q, a.k_cache, a.v_cache, a.block_table, a.kv_len,    \
                                                       a.part_o, a.part_ml, a.kv, a.max_pages, a.splits, sl2); \
    break;
    CP_DECODE_CASE(1)
    CP_DECODE_CASE(2)
    CP_DECODE_CASE(4)
    CP_DECODE_CASE(8)
#undef CP_DECODE_CASE
    default: throw std::runtime_error("attn_decode: GQA group size " + std::to_string(G) + " is not built (1, 2, 4, 8)");
  }
  CP_CHECK_LAUNCH();
  decode_merge_kernel<<<dim3(unsigned(a.qo), unsigned(a.batch)), HD, 0, s>>>(a.part_o, a.part_ml, a.o, a.qo, a.splits);
  CP_CHECK_LAUNCH();
}

int sm_count() {
  int dev = 0, n = 0;
  CP_CHECK(cudaGetDevice(&dev));
  CP_CHECK(cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, dev));
  return n;
}

std::vector<std::uint16_t> random_bf16(std::size_t n, std::uint64_t seed, float scale = 1.0f) {
  std::vector<std::uint16_t> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = ref::float_to_bf16(ref::hash_uniform(seed, i) * scale);
  return v;
}

template <class T>
const __nv_bfloat16* bf(const Buffer<T>& b) {
  return reinterpret_cast<const __nv_bfloat16*>(b.get());
}
template <class T>
__nv_bfloat16* bfm(const Buffer<T>& b) {
  return reinterpret_cast<__nv_bfloat16*>(b.get());
}

void compare(const char* what, const std::vector<std::uint16_t>& got, const std::vector<float>& want) {
  std::vector<float> g(got.size());
  for (std::size_t i = 0; i < got.size(); ++i) g[i] = ref::bf16_to_float(got[i]);
  const std::int64_t bad = ref::first_mismatch(g.data(), want.data(), std::int64_t(g.size()), 2e-2f, 3e-2f);
  if (bad >= 0)
    throw std::runtime_error(std::string(what) + ": element " + std::to_string(bad) + " is " + std::to_string(g[bad]) +
                             ", the CPU reference says " + std::to_string(want[bad]));
}

// The paged layout of a decode batch: lens[b] tokens per request over shuffled pages.
struct PagedLayout {
  std::vector<std::int32_t> table;  // [batch][max_pages]
  int max_pages = 0;
  std::int64_t pages = 0;
};
PagedLayout paged_layout(const std::vector<std::int32_t>& lens, std::uint64_t seed) {
  PagedLayout p;
  for (std::int32_t len : lens) {
    const int n = (len + PAGE - 1) / PAGE;
    p.max_pages = std::max(p.max_pages, n);
    p.pages += n;
  }
  p.max_pages = std::max(p.max_pages, 1);
  std::vector<std::int32_t> perm(static_cast<std::size_t>(std::max<std::int64_t>(p.pages, 1)));
  std::iota(perm.begin(), perm.end(), 0);
  std::shuffle(perm.begin(), perm.end(), std::mt19937_64(seed));
  p.table.assign(lens.size() * static_cast<std::size_t>(p.max_pages), 0);
  std::size_t next = 0;
  for (std::size_t b = 0; b < lens.size(); ++b)
    for (int i = 0; i < (lens[b] + PAGE - 1) / PAGE; ++i) p.table[b * p.max_pages + i] = perm[next++];
  return p;
}

std::string check_prefill() {
  std::string done;
  for (const auto& c : std::vector<std::array<int, 4>>{{0, 70, 4, 2}, {37, 70, 4, 2}, {130, 16, 8, 1}}) {
    const int prefix = c[0], append = c[1], qo = c[2], kv = c[3], len = prefix + append;
    auto q = random_bf16(static_cast<std::size_t>(append) * qo * HD, 31, 2.0f);
    auto k = random_bf16(static_cast<std::size_t>(len) * kv * HD, 32, 2.0f);
    auto v = random_bf16(static_cast<std::size_t>(len) * kv * HD, 33);
    auto dq = upload(q.data(), q.size()), dk = upload(k.data(), k.size()), dv = upload(v.data(), v.size());
    Buffer<std::uint16_t> dout(q.size());
    launch_prefill(bf(dq), bf(dk), bf(dv), bfm(dout), prefix, append, qo, kv, stream());
    CP_CHECK(cudaStreamSynchronize(stream()));
    std::vector<float> want(q.size());
    ref::attention_prefill(q.data(), k.data(), v.data(), want.data(), prefix, append, qo, kv, HD);
    std::vector<std::uint16_t> got(q.size());
    CP_CHECK(cudaMemcpy(got.data(), dout.get(), got.size() * 2, cudaMemcpyDeviceToHost));
    compare("attn_prefill", got, want);
    done += (done.empty() ? "" : ", ") + std::string("(prefix ") + std::to_string(prefix) + ", append " +
            std::to_string(append) + ", " + std::to_string(qo) + "/" + std::to_string(kv) + " heads)";
  }
  return done;
}

std::string check_decode() {
  std::string done;
  for (const auto& c : std::vector<std::array<int, 3>>{{4, 1, 1}, {8, 2, 3}, {8, 1, 0}}) {
    const int qo = c[0], kv = c[1], forced_splits = c[2];
    const std::vector<std::int32_t> lens{1, 37, 300};
    const int batch = int(lens.size());
    const PagedLayout lay = paged_layout(lens, 34);
    const std::size_t cache_elems = static_cast<std::size_t>(lay.pages) * PAGE * kv * HD;
    auto q = random_bf16(static_cast<std::size_t>(batch) * qo * HD, 35, 2.0f);
    auto kc = random_bf16(cache_elems, 36, 2.0f), vc = random_bf16(cache_elems, 37);
    auto dq = upload(q.data(), q.size()), dk = upload(kc.data(), kc.size()), dv = upload(vc.data(), vc.size());
    auto dt = upload(lay.table.data(), lay.table.size());
    auto dl = upload(lens.data(), lens.size());
    const int splits = forced_splits ? forced_splits : decode_splits(batch, kv, 300, sm_count());
    Buffer<float> po(static_cast<std::size_t>(batch) * qo * splits * HD), pml(static_cast<std::size_t>(batch) * qo * splits * 2);
    Buffer<std::uint16_t> dout(q.size());
    launch_decode({bf(dq), bf(dk), bf(dv), dt.get(), dl.get(), po.get(), pml.get(), bfm(dout), batch, qo, kv,
                   lay.max_pages, splits},
                  stream());
    CP_CHECK(cudaStreamSynchronize(stream()));
    std::vector<float> want(q.size());
    ref::attention_decode(q.data(), kc.data(), vc.data(), lay.table.data(), lens.data(), want.data(), batch,
                          lay.max_pages, PAGE, qo, kv, HD);
    std::vector<std::uint16_t> got(q.size());
    CP_CHECK(cudaMemcpy(got.data(), dout.get(), got.size() * 2, cudaMemcpyDeviceToHost));
    compare("attn_decode", got, want);
    done += (done.empty() ? "" : ", ") + std::to_string(qo) + "/" + std::to_string(kv) + " heads " +
            std::to_string(splits) + " splits";
  }
  return "lens 1, 37, 300: " + done;
}

void require(bool ok, const std::string& why) {
  if (!ok) throw std::runtime_error(why);
}

void run_prefill_job(const DeviceJob& job, const TimingOptions& o, PointResult* out, ProgressFn progress, void* user) {
  const int qo = int(job.dims[0]), kv = int(job.dims[1]);
  // The table's points are (batch, append) fresh prefills; this kernel runs one request.
  std::int64_t max_append = 1, max_len = 1;
  for (int p = 0; p < job.npoints; ++p) {
    require(job.inputs[2 * p] == 1, "attn_prefill: the profiler measures one request per point (batch 1)");
    max_append = std::max(max_append, job.inputs[2 * p + 1]);
    max_len = std::max(max_len, job.inputs[2 * p + 1]);
  }
  require(max_len < (std::int64_t(1) << 31), "attn_prefill: prefix + append must fit in int32");
  const cudaStream_t s = stream();
  Buffer<std::uint16_t> q(static_cast<std::size_t>(max_append) * qo * HD), out_b(static_cast<std::size_t>(max_append) * qo * HD);
  Buffer<std::uint16_t> k(static_cast<std::size_t>(max_len) * kv * HD), v(static_cast<std::size_t>(max_len) * kv * HD);
  fill_bf16(q.get(), q.size(), 41, 1.0f, s), fill_bf16(k.get(), k.size(), 42, 1.0f, s),
      fill_bf16(v.get(), v.size(), 43, 1.0f, s);
  CP_CHECK(cudaStreamSynchronize(s));
  for (int p = 0; p < job.npoints; ++p) {
    const int prefix = 0, append = int(job.inputs[2 * p + 1]);
    if (append > 0) {
      const Timed r = time_launches(
          [&](cudaStream_t st, int) { launch_prefill(bf(q), bf(k), bf(v), bfm(out_b), prefix, append, qo, kv, st); }, o);
      out[p] = PointResult{r.ms, 1, r.reps, r.graph ? 1 : 0, -1};
    }
    if (progress) progress(user, p + 1, job.npoints);
  }
}

void run_decode_job(const DeviceJob& job, const TimingOptions& o, PointResult* out, ProgressFn progress, void* user) {
  const int qo = int(job.dims[0]), kv = int(job.dims[1]);
  const int sms = sm_count();
  // Size every buffer for the largest point: pages, batch, splits.
  std::int64_t max_pages_total = 1, max_batch = 1, max_cells = 1;
  for (int p = 0; p < job.npoints; ++p) {
    const std::int64_t batch = job.inputs[2 * p], total = job.inputs[2 * p + 1];
    if (batch <= 0 || total <= 0) continue;
    const std::int64_t avg = total / batch;
    max_pages_total = std::max(max_pages_total, batch * ((avg + PAGE - 1) / PAGE));
    max_batch = std::max(max_batch, batch);
    max_cells = std::max(max_cells, batch * decode_splits(int(batch), kv, int(avg), sms));
  }
  const cudaStream_t s = stream();
  const std::size_t cache_elems = static_cast<std::size_t>(max_pages_total) * PAGE * kv * HD;
  Buffer<std::uint16_t> kc(cache_elems), vc(cache_elems);
  Buffer<std::uint16_t> q(static_cast<std::size_t>(max_batch) * qo * HD), ob(static_cast<std::size_t>(max_batch) * qo * HD);
  Buffer<float> po(static_cast<std::size_t>(max_cells) * qo * HD), pml(static_cast<std::size_t>(max_cells) * qo * 2);
  fill_bf16(kc.get(), kc.size(), 44, 1.0f, s), fill_bf16(vc.get(), vc.size(), 45, 1.0f, s),
      fill_bf16(q.get(), q.size(), 46, 1.0f, s);
  CP_CHECK(cudaStreamSynchronize(s));
  for (int p = 0; p < job.npoints; ++p) {
    const std::int64_t batch = job.inputs[2 * p], total = job.inputs[2 * p + 1];
    if (batch > 0 && total > 0) {
      require(total % batch == 0, "attn_decode: the sweep's total_kv is batch × the average length");
      const int avg = int(total / batch);
      const std::vector<std::int32_t> lens(static_cast<std::size_t>(batch), avg);
      const PagedLayout lay = paged_layout(lens, 47 + std::uint64_t(p));
      auto dt = upload(lay.table.data(), lay.table.size());
      auto dl = upload(lens.data(), lens.size());
      const DecodeArgs a{bf(q), bf(kc), bf(vc), dt.get(), dl.get(), po.get(), pml.get(), bfm(ob), int(batch), qo, kv,
                         lay.max_pages, decode_splits(int(batch), kv, avg, sms)};
      const Timed r = time_launches([&](cudaStream_t st, int) { launch_decode(a, st); }, o);
      out[p] = PointResult{r.ms, 1, r.reps, r.graph ? 1 : 0, -1};
    }
    if (progress) progress(user, p + 1, job.npoints);
  }
}

}  // namespace

std::string check_attention(int kind) {
  if (kind == kind_attn_prefill) return check_prefill();
  if (kind == kind_attn_decode) return check_decode();
  throw std::runtime_error("not an attention kind");
}

void run_attention_job(const DeviceJob& job, const TimingOptions& o, PointResult* out, ProgressFn progress,
                       void* user) {
  require(job.dtype == dtype_bf16, "only bf16 attention (bf16 KV cache) is implemented");
  require(job.dims[2] == HD, "only head_dim 128 is built");
  require(job.dims[1] > 0 && job.dims[0] % job.dims[1] == 0, "num_kv_heads must divide num_qo_heads");
  require(job.ninputs == 2, "expected two inputs per point");
  if (job.kind == kind_attn_prefill)
    run_prefill_job(job, o, out, progress, user);
  else
    run_decode_job(job, o, out, progress, user);
}

}  // namespace costdsl_prof::cuda
