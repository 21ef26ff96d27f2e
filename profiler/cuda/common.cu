#include <cuda_fp8.h>

#include <algorithm>
#include <vector>

#include "../reference.hpp"
#include "common.cuh"

namespace costdsl_prof::cuda {

namespace {

__device__ __forceinline__ float hash_uniform_dev(std::uint64_t seed, std::uint64_t i) {
  std::uint64_t z = seed * 0x9E3779B97F4A7C15ull + i + 0x632BE59BD9B4E019ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return float(z >> 40) * (2.0f / 16777216.0f) - 1.0f;
}

__global__ void fill_bf16_kernel(std::uint16_t* p, std::size_t n, std::uint64_t seed, float scale) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x) {
    const __nv_bfloat16 h = __float2bfloat16_rn(hash_uniform_dev(seed, i) * scale);
    p[i] = *reinterpret_cast<const std::uint16_t*>(&h);
  }
}

__global__ void fill_fp8_kernel(std::uint8_t* p, std::size_t n, std::uint64_t seed, float scale) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x) {
    const __nv_fp8_e4m3 v(hash_uniform_dev(seed, i) * scale);
    p[i] = v.__x;
  }
}

unsigned fill_blocks(std::size_t n) { return unsigned(std::min<std::size_t>((n + 255) / 256, 65536)); }

}  // namespace

void fill_bf16(std::uint16_t* p, std::size_t n, std::uint64_t seed, float scale, cudaStream_t s) {
  if (n == 0) return;
  fill_bf16_kernel<<<fill_blocks(n), 256, 0, s>>>(p, n, seed, scale);
  CP_CHECK_LAUNCH();
}

void fill_fp8(std::uint8_t* p, std::size_t n, std::uint64_t seed, float scale, cudaStream_t s) {
  if (n == 0) return;
  fill_fp8_kernel<<<fill_blocks(n), 256, 0, s>>>(p, n, seed, scale);
  CP_CHECK_LAUNCH();
}

cudaStream_t stream() {
  static cudaStream_t s = [] {
    cudaStream_t st = nullptr;
    CP_CHECK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    return st;
  }();
  return s;
}

namespace {

struct Events {
  cudaEvent_t a = nullptr, b = nullptr;
  Events() {
    CP_CHECK(cudaEventCreate(&a));
    CP_CHECK(cudaEventCreate(&b));
  }
  ~Events() {
    cudaEventDestroy(a);
    cudaEventDestroy(b);
  }
  float elapsed() const {
    CP_CHECK(cudaEventSynchronize(b));
    float ms = 0;
    CP_CHECK(cudaEventElapsedTime(&ms, a, b));
    return ms;
  }
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

}  // namespace

Timed time_launches(const std::function<void(cudaStream_t, int)>& launch, const TimingOptions& o) {
  const cudaStream_t s = stream();
  Events ev;
  int it = 0;
  CP_CHECK(cudaEventRecord(ev.a, s));
  launch(s, it++);
  CP_CHECK(cudaEventRecord(ev.b, s));
  const double t0 = ev.elapsed();
  CP_CHECK(cudaGetLastError());

  Timed out;
  std::vector<double> samples;
  const int reps = std::max(1, o.reps);
  if (t0 < o.graph_below_ms && o.graph_launches > 1) {
    const int launches = o.graph_launches;
    cudaGraph_t graph = nullptr;
    cudaGraphExec_t exec = nullptr;
    CP_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
    try {
      for (int i = 0; i < launches; ++i) launch(s, it++);
    } catch (...) {
      cudaStreamEndCapture(s, &graph);  // leave capture mode before reporting
      if (graph) cudaGraphDestroy(graph);
      cudaGetLastError();
      throw;
    }
    CP_CHECK(cudaStreamEndCapture(s, &graph));
    const cudaError_t inst = cudaGraphInstantiate(&exec, graph, 0);
    if (inst != cudaSuccess) {
      cudaGraphDestroy(graph);
      CP_CHECK(inst);
    }
    try {
      for (int w = 0; w < std::max(1, o.warmup); ++w) CP_CHECK(cudaGraphLaunch(exec, s));
      for (int r = 0; r < reps; ++r) {
        CP_CHECK(cudaEventRecord(ev.a, s));
        CP_CHECK(cudaGraphLaunch(exec, s));
        CP_CHECK(cudaEventRecord(ev.b, s));
        samples.push_back(ev.elapsed() / launches);
      }
    } catch (...) {
      cudaGraphExecDestroy(exec);
      cudaGraphDestroy(graph);
      throw;
    }
    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(graph);
    out.graph = true;
  } else if (t0 > 4 * o.target_ms) {
    samples.push_back(t0);
  } else {
    const int warm = t0 * o.warmup > o.target_ms ? 0 : o.warmup;
    const int n = std::clamp(int(o.target_ms / std::max(t0, 1e-6)), 1, reps);
    for (int w = 0; w < warm; ++w) launch(s, it++);
    for (int r = 0; r < n; ++r) {
      CP_CHECK(cudaEventRecord(ev.a, s));
      launch(s, it++);
      CP_CHECK(cudaEventRecord(ev.b, s));
      samples.push_back(ev.elapsed());
    }
  }
  CP_CHECK(cudaGetLastError());
  out.ms = median(samples);
  out.reps = int(samples.size());
  return out;
}

}  // namespace costdsl_prof::cuda
