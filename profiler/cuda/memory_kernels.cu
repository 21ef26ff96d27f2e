// costdsl's own memory-bound kernels (backend "costdsl_cuda"): rms_norm,
// fused_add_rms_norm, silu_and_mul, rope (NeoX), embedding gather, kv_cache_append.
// bf16 storage, fp32 math, 16-byte (8 × bf16) vector accesses throughout.
#include <algorithm>
#include <cstring>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "../reference.hpp"
#include "common.cuh"
#include "kinds.cuh"

namespace costdsl_prof::cuda {

namespace {

constexpr float rms_eps = 1e-5f;
constexpr int norm_threads = 256;
constexpr int page_size = 16;

// 8 bf16 in one 16-byte vector.
struct alignas(16) Vec8 {
  __nv_bfloat162 h[4];
};

__device__ __forceinline__ void unpack(const Vec8& v, float (&f)[8]) {
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    const float2 p = __bfloat1622float2(v.h[j]);
    f[2 * j] = p.x;
    f[2 * j + 1] = p.y;
  }
}
__device__ __forceinline__ Vec8 pack(const float (&f)[8]) {
  Vec8 v;
#pragma unroll
  for (int j = 0; j < 4; ++j) v.h[j] = __floats2bfloat162_rn(f[2 * j], f[2 * j + 1]);
  return v;
}

// Sum over the block; every thread gets the total.
template <int Threads>
__device__ float block_sum(float v) {
  __shared__ float partial[Threads / 32];
  __shared__ float total;
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  if ((threadIdx.x & 31) == 0) partial[threadIdx.x >> 5] = v;
  __syncthreads();
  if (threadIdx.x < 32) {
    float s = threadIdx.x < Threads / 32 ? partial[threadIdx.x] : 0.0f;
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
    if (threadIdx.x == 0) total = s;
  }
  __syncthreads();
  return total;
}

// One block per token. vecs = hidden / 8.
__global__ void __launch_bounds__(norm_threads) rms_norm_kernel(const Vec8* __restrict__ x, const Vec8* __restrict__ w,
                                                                Vec8* __restrict__ y, int vecs, float eps) {
  const Vec8* xr = x + static_cast<std::size_t>(blockIdx.x) * vecs;
  Vec8* yr = y + static_cast<std::size_t>(blockIdx.x) * vecs;
  float ss = 0;
  for (int i = threadIdx.x; i < vecs; i += norm_threads) {
    float f[8];
    unpack(xr[i], f);
#pragma unroll
    for (int j = 0; j < 8; ++j) ss += f[j] * f[j];
  }
  const float inv = rsqrtf(block_sum<norm_threads>(ss) / float(vecs * 8) + eps);
  for (int i = threadIdx.x; i < vecs; i += norm_threads) {
    float f[8], g[8];
    unpack(xr[i], f);
    unpack(w[i], g);
#pragma unroll
    for (int j = 0; j < 8; ++j) f[j] = f[j] * inv * g[j];
    yr[i] = pack(f);
  }
}

// r ← x + r (stored as bf16), x ← rms_norm(r)·w. One block per token.
__global__ void __launch_bounds__(norm_threads) fused_add_rms_norm_kernel(Vec8* __restrict__ x, Vec8* __restrict__ r,
                                                                          const Vec8* __restrict__ w, int vecs,
                                                                          float eps) {
  Vec8* xr = x + static_cast<std::size_t>(blockIdx.x) * vecs;
  Vec8* rr = r + static_cast<std::size_t>(blockIdx.x) * vecs;
  float ss = 0;
  for (int i = threadIdx.x; i < vecs; i += norm_threads) {
    float a[8], b[8];
    unpack(xr[i], a);
    unpack(rr[i], b);
#pragma unroll
    for (int j = 0; j < 8; ++j) a[j] += b[j];
    const Vec8 sum = pack(a);
    rr[i] = sum;
    unpack(sum, a);  // the rounded values, as the reference sees them
#pragma unroll
    for (int j = 0; j < 8; ++j) ss += a[j] * a[j];
  }
  const float inv = rsqrtf(block_sum<norm_threads>(ss) / float(vecs * 8) + eps);
  for (int i = threadIdx.x; i < vecs; i += norm_threads) {  // each thread rereads its own writes
    float f[8], g[8];
    unpack(rr[i], f);
    unpack(w[i], g);
#pragma unroll
    for (int j = 0; j < 8; ++j) f[j] = f[j] * inv * g[j];
    xr[i] = pack(f);
  }
}

// in[t] = [gate | up], I/8 vectors each; out[t] = silu(gate)·up.
__global__ void silu_and_mul_kernel(const Vec8* __restrict__ in, Vec8* __restrict__ out, std::int64_t tokens,
                                    int ivecs) {
  const std::int64_t n = tokens * ivecs;
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n;
       i += std::int64_t(gridDim.x) * blockDim.x) {
    const std::int64_t t = i / ivecs, c = i % ivecs;
    float g[8], u[8];
    unpack(in[t * 2 * ivecs + c], g);
    unpack(in[t * 2 * ivecs + ivecs + c], u);
#pragma unroll
    for (int j = 0; j < 8; ++j) g[j] = g[j] / (1.0f + __expf(-g[j])) * u[j];
    out[i] = pack(g);
  }
}

// NeoX rope in place; one thread per (token, head, 8-pair chunk). hvecs = hd / 16.
__global__ void rope_kernel(Vec8* __restrict__ q, Vec8* __restrict__ k, const std::int64_t* __restrict__ pos,
                            const Vec8* __restrict__ cos_sin, std::int64_t tokens, int qo, int kv, int hvecs) {
  const int heads = qo + kv;
  const std::int64_t n = tokens * heads * hvecs;
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n;
       i += std::int64_t(gridDim.x) * blockDim.x) {
    const int c = int(i % hvecs);
    const std::int64_t th = i / hvecs;
    const int h = int(th % heads);
    const std::int64_t t = th / heads;
    Vec8* row = h < qo ? q + (t * qo + h) * 2 * hvecs : k + (t * kv + (h - qo)) * 2 * hvecs;
    const Vec8* cs = cos_sin + pos[t] * 2 * hvecs;
    float x1[8], x2[8], co[8], si[8];
    unpack(row[c], x1);
    unpack(row[hvecs + c], x2);
    unpack(cs[c], co);
    unpack(cs[hvecs + c], si);
    float a[8], b[8];
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      a[j] = x1[j] * co[j] - x2[j] * si[j];
      b[j] = x2[j] * co[j] + x1[j] * si[j];
    }
    row[c] = pack(a);
    row[hvecs + c] = pack(b);
  }
}

__global__ void embedding_kernel(const std::int32_t* __restrict__ ids, const Vec8* __restrict__ table,
                                 Vec8* __restrict__ out, std::int64_t tokens, int vecs) {
  const std::int64_t n = tokens * vecs;
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n;
       i += std::int64_t(gridDim.x) * blockDim.x) {
    const std::int64_t t = i / vecs, c = i % vecs;
    out[i] = table[std::int64_t(ids[t]) * vecs + c];
  }
}

// k, v: [tokens][row]; caches [slots][row]; row = kv·hd/8 vectors.
__global__ void kv_cache_append_kernel(const Vec8* __restrict__ k, const Vec8* __restrict__ v,
                                       const std::int64_t* __restrict__ slots, Vec8* __restrict__ kc,
                                       Vec8* __restrict__ vc, std::int64_t tokens, int row) {
  const std::int64_t n = tokens * row;
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n;
       i += std::int64_t(gridDim.x) * blockDim.x) {
    const std::int64_t t = i / row, c = i % row;
    const std::int64_t s = slots[t];
    if (s < 0) continue;
    kc[s * row + c] = k[i];
    vc[s * row + c] = v[i];
  }
}

unsigned grid_for(std::int64_t items, int threads = 256) {
  // Enough blocks to fill the GPU several times over; the loops are grid-stride.
  return unsigned(std::max<std::int64_t>(1, std::min<std::int64_t>((items + threads - 1) / threads, 132 * 32)));
}

template <class T>
Vec8* v8(const Buffer<T>& b) {
  return reinterpret_cast<Vec8*>(b.get());
}

// The launches, shared by the check and the timing.
void launch_rms_norm(const Buffer<std::uint16_t>& x, const Buffer<std::uint16_t>& w, const Buffer<std::uint16_t>& y,
                     std::int64_t tokens, std::int64_t hidden, cudaStream_t s) {
  rms_norm_kernel<<<unsigned(tokens), norm_threads, 0, s>>>(v8(x), v8(w), v8(y), int(hidden / 8), rms_eps);
  CP_CHECK_LAUNCH();
}
void launch_fused(const Buffer<std::uint16_t>& x, const Buffer<std::uint16_t>& r, const Buffer<std::uint16_t>& w,
                  std::int64_t tokens, std::int64_t hidden, cudaStream_t s) {
  fused_add_rms_norm_kernel<<<unsigned(tokens), norm_threads, 0, s>>>(v8(x), v8(r), v8(w), int(hidden / 8), rms_eps);
  CP_CHECK_LAUNCH();
}
void launch_silu(const Buffer<std::uint16_t>& in, const Buffer<std::uint16_t>& out, std::int64_t tokens,
                 std::int64_t inter, cudaStream_t s) {
  silu_and_mul_kernel<<<grid_for(tokens * inter / 8), 256, 0, s>>>(v8(in), v8(out), tokens, int(inter / 8));
  CP_CHECK_LAUNCH();
}
void launch_rope(const Buffer<std::uint16_t>& q, const Buffer<std::uint16_t>& k, const Buffer<std::int64_t>& pos,
                 const Buffer<std::uint16_t>& cs, std::int64_t tokens, std::int64_t qo, std::int64_t kv,
                 std::int64_t hd, cudaStream_t s) {
  rope_kernel<<<grid_for(tokens * (qo + kv) * hd / 16), 256, 0, s>>>(v8(q), v8(k), pos.get(), v8(cs), tokens, int(qo),
                                                                     int(kv), int(hd / 16));
  CP_CHECK_LAUNCH();
}
void launch_embedding(const Buffer<std::int32_t>& ids, const Buffer<std::uint16_t>& table,
                      const Buffer<std::uint16_t>& out, std::int64_t tokens, std::int64_t hidden, cudaStream_t s) {
  embedding_kernel<<<grid_for(tokens * hidden / 8), 256, 0, s>>>(ids.get(), v8(table), v8(out), tokens,
                                                                 int(hidden / 8));
  CP_CHECK_LAUNCH();
}
void launch_append(const Buffer<std::uint16_t>& k, const Buffer<std::uint16_t>& v, const Buffer<std::int64_t>& slots,
                   const Buffer<std::uint16_t>& kc, const Buffer<std::uint16_t>& vc, std::int64_t tokens,
                   std::int64_t kv, std::int64_t hd, cudaStream_t s) {
  kv_cache_append_kernel<<<grid_for(tokens * kv * hd / 8), 256, 0, s>>>(v8(k), v8(v), slots.get(), v8(kc), v8(vc),
                                                                        tokens, int(kv * hd / 8));
  CP_CHECK_LAUNCH();
}

std::vector<std::uint16_t> random_bf16(std::size_t n, std::uint64_t seed, float scale = 1.0f) {
  std::vector<std::uint16_t> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = ref::float_to_bf16(ref::hash_uniform(seed, i) * scale);
  return v;
}

template <class T>
std::vector<T> download(const Buffer<T>& b, std::size_t n) {
  std::vector<T> h(n);
  CP_CHECK(cudaMemcpy(h.data(), b.get(), n * sizeof(T), cudaMemcpyDeviceToHost));
  return h;
}

void compare_bf16(const char* what, const std::vector<std::uint16_t>& got, const std::vector<std::uint16_t>& want,
                  float atol, float rtol) {
  std::vector<float> g(got.size()), w(want.size());
  for (std::size_t i = 0; i < got.size(); ++i) g[i] = ref::bf16_to_float(got[i]);
  for (std::size_t i = 0; i < want.size(); ++i) w[i] = ref::bf16_to_float(want[i]);
  const std::int64_t bad = ref::first_mismatch(g.data(), w.data(), std::int64_t(g.size()), atol, rtol);
  if (bad >= 0)
    throw std::runtime_error(std::string(what) + ": element " + std::to_string(bad) + " is " + std::to_string(g[bad]) +
                             ", the CPU reference says " + std::to_string(w[bad]));
}

// A slot mapping over shuffled pages of page_size slots: token t → page perm[t / 16].
std::vector<std::int64_t> paged_slots(std::int64_t tokens, std::uint64_t seed) {
  const std::int64_t pages = (tokens + page_size - 1) / page_size;
  std::vector<std::int64_t> perm(static_cast<std::size_t>(pages));
  std::iota(perm.begin(), perm.end(), 0);
  std::shuffle(perm.begin(), perm.end(), std::mt19937_64(seed));
  std::vector<std::int64_t> slots(static_cast<std::size_t>(tokens));
  for (std::int64_t t = 0; t < tokens; ++t) slots[static_cast<std::size_t>(t)] = perm[static_cast<std::size_t>(t / page_size)] * page_size + t % page_size;
  return slots;
}

void require(bool ok, const std::string& why) {
  if (!ok) throw std::runtime_error(why);
}

}  // namespace

std::string check_memory_kind(int kind) {
  const cudaStream_t s = stream();
  switch (kind) {
    case kind_rms_norm:
    case kind_fused_add_rms_norm: {
      for (const std::int64_t hidden : {64, 4096 + 8 * 3}) {  // one vector per thread and a ragged loop
        const std::int64_t tokens = 5, n = tokens * hidden;
        auto x = random_bf16(static_cast<std::size_t>(n), 1, 2.0f), r = random_bf16(static_cast<std::size_t>(n), 2), w = random_bf16(static_cast<std::size_t>(hidden), 3);
        auto dx = upload(x.data(), x.size()), dr = upload(r.data(), r.size()), dw = upload(w.data(), w.size());
        Buffer<std::uint16_t> dy(static_cast<std::size_t>(n));
        if (kind == kind_rms_norm) {
          launch_rms_norm(dx, dw, dy, tokens, hidden, s);
          CP_CHECK(cudaStreamSynchronize(s));
          std::vector<std::uint16_t> want(static_cast<std::size_t>(n));
          ref::rms_norm(x.data(), w.data(), want.data(), tokens, hidden, rms_eps);
          compare_bf16("rms_norm", download(dy, static_cast<std::size_t>(n)), want, 1e-2f, 1e-2f);
        } else {
          launch_fused(dx, dr, dw, tokens, hidden, s);
          CP_CHECK(cudaStreamSynchronize(s));
          ref::fused_add_rms_norm(x.data(), r.data(), w.data(), tokens, hidden, rms_eps);
          compare_bf16("fused_add_rms_norm residual", download(dr, static_cast<std::size_t>(n)), r, 0, 0);
          compare_bf16("fused_add_rms_norm output", download(dx, static_cast<std::size_t>(n)), x, 1e-2f, 1e-2f);
        }
      }
      return "5 tokens × hidden 64 and 4120";
    }
    case kind_silu_and_mul: {
      const std::int64_t tokens = 7, inter = 200;
      auto in = random_bf16(static_cast<std::size_t>(tokens * 2 * inter), 4, 4.0f);
      auto din = upload(in.data(), in.size());
      Buffer<std::uint16_t> dout(static_cast<std::size_t>(tokens * inter));
      launch_silu(din, dout, tokens, inter, s);
      CP_CHECK(cudaStreamSynchronize(s));
      std::vector<std::uint16_t> want(static_cast<std::size_t>(tokens * inter));
      ref::silu_and_mul(in.data(), want.data(), tokens, inter);
      compare_bf16("silu_and_mul", download(dout, want.size()), want, 1e-2f, 1e-2f);
      return "7 tokens × intermediate 200";
    }
    case kind_rope: {
      const std::int64_t tokens = 6, qo = 4, kv = 2, hd = 128, max_pos = 4096;
      auto q = random_bf16(static_cast<std::size_t>(tokens * qo * hd), 5), k = random_bf16(static_cast<std::size_t>(tokens * kv * hd), 6);
      const std::vector<std::int64_t> pos{0, 1, 17, 255, 1000, 4095};
      const auto cs = ref::rope_cos_sin_cache(max_pos, hd);
      auto dq = upload(q.data(), q.size()), dk = upload(k.data(), k.size());
      auto dpos = upload(pos.data(), pos.size());
      auto dcs = upload(cs.data(), cs.size());
      launch_rope(dq, dk, dpos, dcs, tokens, qo, kv, hd, s);
      CP_CHECK(cudaStreamSynchronize(s));
      ref::rope_neox(q.data(), k.data(), pos.data(), cs.data(), tokens, qo, kv, hd);
      compare_bf16("rope q", download(dq, q.size()), q, 1e-2f, 1e-2f);
      compare_bf16("rope k", download(dk, k.size()), k, 1e-2f, 1e-2f);
      return "6 tokens, 4 qo + 2 kv heads × 128";
    }
    case kind_embedding: {
      const std::int64_t tokens = 9, vocab = 1000, hidden = 64;
      auto table = random_bf16(static_cast<std::size_t>(vocab * hidden), 7);
      std::vector<std::int32_t> ids{0, 999, 5, 5, 123, 998, 1, 500, 42};
      auto dt = upload(table.data(), table.size());
      auto di = upload(ids.data(), ids.size());
      Buffer<std::uint16_t> dout(static_cast<std::size_t>(tokens * hidden));
      launch_embedding(di, dt, dout, tokens, hidden, s);
      CP_CHECK(cudaStreamSynchronize(s));
      std::vector<std::uint16_t> want(static_cast<std::size_t>(tokens * hidden));
      ref::embedding(ids.data(), table.data(), want.data(), tokens, hidden);
      compare_bf16("embedding", download(dout, want.size()), want, 0, 0);
      return "9 tokens of a 1000 × 64 table";
    }
    case kind_kv_cache_append: {
      const std::int64_t tokens = 37, kv = 2, hd = 128, row = kv * hd, slots_n = 64;
      auto k = random_bf16(static_cast<std::size_t>(tokens * row), 8), v = random_bf16(static_cast<std::size_t>(tokens * row), 9);
      auto slots = paged_slots(tokens, 10);
      slots[3] = -1;  // a padding token is skipped
      std::vector<std::uint16_t> kc(static_cast<std::size_t>(slots_n * row), 0), vc(static_cast<std::size_t>(slots_n * row), 0);
      auto dk = upload(k.data(), k.size()), dv = upload(v.data(), v.size());
      auto ds = upload(slots.data(), slots.size());
      auto dkc = upload(kc.data(), kc.size()), dvc = upload(vc.data(), vc.size());
      launch_append(dk, dv, ds, dkc, dvc, tokens, kv, hd, s);
      CP_CHECK(cudaStreamSynchronize(s));
      ref::kv_cache_append(k.data(), v.data(), slots.data(), kc.data(), vc.data(), tokens, kv, hd);
      compare_bf16("kv_cache_append k", download(dkc, kc.size()), kc, 0, 0);
      compare_bf16("kv_cache_append v", download(dvc, vc.size()), vc, 0, 0);
      return "37 tokens into shuffled pages, one padding slot";
    }
    default: throw std::runtime_error("not a memory kind");
  }
}

void run_memory_job(const DeviceJob& job, const TimingOptions& o, PointResult* out, ProgressFn progress, void* user) {
  require(job.dtype == dtype_bf16, "only bf16 storage is implemented for this kind");
  require(job.ninputs == 1, "expected one input (tokens) per point");
  std::int64_t max_tokens = 1;
  for (int i = 0; i < job.npoints; ++i) max_tokens = std::max(max_tokens, job.inputs[i]);
  const cudaStream_t s = stream();
  const auto t = static_cast<std::size_t>(max_tokens);
  std::function<void(cudaStream_t, std::int64_t)> launch;
  // Buffers live until the end of the job.
  Buffer<std::uint16_t> a, b, c, d, e, f;
  Buffer<std::int64_t> i64;
  Buffer<std::int32_t> i32;
  switch (job.kind) {
    case kind_rms_norm:
    case kind_fused_add_rms_norm: {
      const std::int64_t hidden = job.dims[0];
      require(hidden % 8 == 0, "hidden must be a multiple of 8 (16-byte vectors)");
      a.alloc(t * hidden), b.alloc(t * hidden), c.alloc(static_cast<std::size_t>(hidden));
      fill_bf16(a.get(), a.size(), 11, 1.0f, s), fill_bf16(b.get(), b.size(), 12, 1.0f, s),
          fill_bf16(c.get(), c.size(), 13, 1.0f, s);
      if (job.kind == kind_rms_norm)
        launch = [&, hidden](cudaStream_t st, std::int64_t tok) { launch_rms_norm(a, c, b, tok, hidden, st); };
      else  // in place: values drift over repetitions but stay bounded by the norm
        launch = [&, hidden](cudaStream_t st, std::int64_t tok) { launch_fused(a, b, c, tok, hidden, st); };
      break;
    }
    case kind_silu_and_mul: {
      const std::int64_t inter = job.dims[0];
      require(inter % 8 == 0, "intermediate must be a multiple of 8 (16-byte vectors)");
      a.alloc(t * 2 * inter), b.alloc(t * inter);
      fill_bf16(a.get(), a.size(), 14, 2.0f, s);
      launch = [&, inter](cudaStream_t st, std::int64_t tok) { launch_silu(a, b, tok, inter, st); };
      break;
    }
    case kind_rope: {
      const std::int64_t qo = job.dims[0], kv = job.dims[1], hd = job.dims[2];
      require(hd % 16 == 0, "head_dim must be a multiple of 16 (8-pair vectors)");
      a.alloc(t * qo * hd), b.alloc(t * kv * hd), c.alloc(t * hd);
      fill_bf16(a.get(), a.size(), 15, 1.0f, s), fill_bf16(b.get(), b.size(), 16, 1.0f, s),
          fill_bf16(c.get(), c.size(), 17, 1.0f, s);  // cos/sin values do not change the timing
      std::vector<std::int64_t> pos(t);
      std::iota(pos.begin(), pos.end(), 0);  // a prefill chunk: positions 0..tokens-1
      i64 = upload(pos.data(), pos.size());
      launch = [&, qo, kv, hd](cudaStream_t st, std::int64_t tok) { launch_rope(a, b, i64, c, tok, qo, kv, hd, st); };
      break;
    }
    case kind_embedding: {
      const std::int64_t vocab = job.dims[0], hidden = job.dims[1];
      require(hidden % 8 == 0, "hidden must be a multiple of 8 (16-byte vectors)");
      a.alloc(static_cast<std::size_t>(vocab * hidden)), b.alloc(t * hidden);
      fill_bf16(a.get(), a.size(), 18, 1.0f, s);
      std::vector<std::int32_t> ids(t);
      std::mt19937 rng(19);
      std::uniform_int_distribution<std::int32_t> dist(0, std::int32_t(vocab - 1));
      for (auto& id : ids) id = dist(rng);
      i32 = upload(ids.data(), ids.size());
      launch = [&, hidden](cudaStream_t st, std::int64_t tok) { launch_embedding(i32, a, b, tok, hidden, st); };
      break;
    }
    case kind_kv_cache_append: {
      const std::int64_t kv = job.dims[0], hd = job.dims[1];
      require((kv * hd) % 8 == 0, "num_kv_heads·head_dim must be a multiple of 8 (16-byte vectors)");
      const std::int64_t pages = (max_tokens + page_size - 1) / page_size;
      a.alloc(t * kv * hd), b.alloc(t * kv * hd);
      c.alloc(static_cast<std::size_t>(pages * page_size * kv * hd)), d.alloc(static_cast<std::size_t>(pages * page_size * kv * hd));
      fill_bf16(a.get(), a.size(), 20, 1.0f, s), fill_bf16(b.get(), b.size(), 21, 1.0f, s);
      const auto slots = paged_slots(max_tokens, 22);
      i64 = upload(slots.data(), slots.size());
      launch = [&, kv, hd](cudaStream_t st, std::int64_t tok) { launch_append(a, b, i64, c, d, tok, kv, hd, st); };
      break;
    }
    default: throw std::runtime_error("not a memory kind");
  }
  CP_CHECK(cudaStreamSynchronize(s));
  for (int p = 0; p < job.npoints; ++p) {
    const std::int64_t tokens = job.inputs[p];
    if (tokens > 0) {
      const Timed r = time_launches([&](cudaStream_t st, int) { launch(st, tokens); }, o);
      out[p] = PointResult{r.ms, 1, r.reps, r.graph ? 1 : 0, -1};
    }
    if (progress) progress(user, p + 1, job.npoints);
  }
}

}  // namespace costdsl_prof::cuda
