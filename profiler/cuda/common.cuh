// Shared pieces of the CUDA side: error checks, device buffers, random fills and the
// timing loop. Plain CUDA C++17: no fmt, Boost, nlohmann or costdsl headers here.
#pragma once
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <utility>

#include "../device_api.h"

namespace costdsl_prof::cuda {

struct CudaError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

inline void check(cudaError_t e, const char* what, const char* file, int line) {
  if (e != cudaSuccess)
    throw CudaError(std::string(what) + ": " + cudaGetErrorString(e) + " (" + file + ":" + std::to_string(line) + ")");
}
#define CP_CHECK(x) ::costdsl_prof::cuda::check((x), #x, __FILE__, __LINE__)
// After a kernel launch: launch-configuration errors surface here.
#define CP_CHECK_LAUNCH() ::costdsl_prof::cuda::check(cudaGetLastError(), "kernel launch", __FILE__, __LINE__)

// An owning device allocation of n elements of T.
template <class T>
class Buffer {
 public:
  Buffer() = default;
  explicit Buffer(std::size_t n) { alloc(n); }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  Buffer(Buffer&& o) noexcept : p_(std::exchange(o.p_, nullptr)), n_(std::exchange(o.n_, 0)) {}
  Buffer& operator=(Buffer&& o) noexcept {
    if (this != &o) {
      release();
      p_ = std::exchange(o.p_, nullptr);
      n_ = std::exchange(o.n_, 0);
    }
    return *this;
  }
  ~Buffer() { release(); }
  void alloc(std::size_t n) {
    release();
    if (n == 0) n = 1;
    void* p = nullptr;
    const cudaError_t e = cudaMalloc(&p, n * sizeof(T));
    if (e != cudaSuccess) {
      cudaGetLastError();  // clear the sticky-free allocation error
      throw CudaError("cudaMalloc of " + std::to_string(n * sizeof(T)) + " bytes failed: " + cudaGetErrorString(e));
    }
    p_ = static_cast<T*>(p);
    n_ = n;
  }
  void release() noexcept {
    if (p_) cudaFree(p_);
    p_ = nullptr;
    n_ = 0;
  }
  T* get() const noexcept { return p_; }
  std::size_t size() const noexcept { return n_; }
  std::size_t bytes() const noexcept { return n_ * sizeof(T); }

 private:
  T* p_ = nullptr;
  std::size_t n_ = 0;
};

// Uniform values in [-scale, scale) from ref::hash_uniform(seed, i), as bf16 / fp8 bits.
void fill_bf16(std::uint16_t* p, std::size_t n, std::uint64_t seed, float scale, cudaStream_t s);
void fill_fp8(std::uint8_t* p, std::size_t n, std::uint64_t seed, float scale, cudaStream_t s);

// The stream every measurement runs on (created on first use).
cudaStream_t stream();

struct Timed {
  double ms = 0;   // median per launch
  int reps = 0;    // timed samples behind the median
  bool graph = false;
};

// Times launch(stream, i) (i counts every launch, e.g. to rotate weight buffers):
//  1. one probe run, timed with events: t0;
//  2. t0 < graph_below_ms: `graph_launches` launches captured in one CUDA graph,
//     `warmup` untimed replays, `reps` timed replays; sample = replay time / launches;
//  3. otherwise `warmup` untimed launches (none when they would exceed target_ms) and
//     reps = clamp(target_ms / t0, 1, reps) timed launches, one event pair each;
//     when t0 > 4·target_ms the probe itself is the one sample (long points).
// Returns the median sample.
Timed time_launches(const std::function<void(cudaStream_t, int)>& launch, const TimingOptions& o);

// Copies a host vector to a new device buffer.
template <class T>
Buffer<T> upload(const T* host, std::size_t n) {
  Buffer<T> b(n);
  CP_CHECK(cudaMemcpy(b.get(), host, n * sizeof(T), cudaMemcpyHostToDevice));
  return b;
}

}  // namespace costdsl_prof::cuda
