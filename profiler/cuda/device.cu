// The C-style entry points of device_api.h: exceptions stop here and become messages.
#include <cstdio>
#include <cstring>
#include <string>

#include "common.cuh"
#include "kinds.cuh"

#ifndef COSTDSL_PROF_ARCH
#define COSTDSL_PROF_ARCH 0
#endif

namespace costdsl_prof {

namespace {

void put(char* dst, int len, const std::string& s) {
  if (dst == nullptr || len <= 0) return;
  std::snprintf(dst, std::size_t(len), "%s", s.c_str());
}

template <class F>
int guarded(char* message, int message_len, F&& f) {
  try {
    f();
    return 0;
  } catch (const std::exception& e) {
    put(message, message_len, e.what());
  } catch (...) {
    put(message, message_len, "unknown error");
  }
  return 1;
}

}  // namespace

int device_query(DeviceInfo* info, char* message, int message_len) {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) {
    put(message, message_len, std::string("cudaGetDeviceCount: ") + cudaGetErrorString(e));
    cudaGetLastError();
    return 1;
  }
  if (count == 0) {
    put(message, message_len, "no CUDA device found");
    return 1;
  }
  return guarded(message, message_len, [&] {
    int dev = 0;
    CP_CHECK(cudaSetDevice(dev));
    cudaDeviceProp p{};
    CP_CHECK(cudaGetDeviceProperties(&p, dev));
    std::snprintf(info->name, sizeof info->name, "%s", p.name);
    info->sm_major = p.major;
    info->sm_minor = p.minor;
    info->sm_count = p.multiProcessorCount;
    info->l2_bytes = p.l2CacheSize;
    info->global_mem_bytes = static_cast<long long>(p.totalGlobalMem);
    info->mem_bus_width = p.memoryBusWidth;
    CP_CHECK(cudaDriverGetVersion(&info->driver_version));
    CP_CHECK(cudaRuntimeGetVersion(&info->runtime_version));
    cudaDeviceGetAttribute(&info->clock_khz, cudaDevAttrClockRate, dev);
    cudaDeviceGetAttribute(&info->mem_clock_khz, cudaDevAttrMemoryClockRate, dev);
    cudaGetLastError();
    info->cublaslt_version = cuda::cublaslt_version();
    info->compiled_arch = COSTDSL_PROF_ARCH;
  });
}

int device_self_check(int kind, char* message, int message_len) {
  return guarded(message, message_len, [&] {
    std::string what;
    switch (kind) {
      case kind_gemm: what = cuda::check_gemm(); break;
      case kind_attn_prefill:
      case kind_attn_decode: what = cuda::check_attention(kind); break;
      default: what = cuda::check_memory_kind(kind); break;
    }
    put(message, message_len, what);
  });
}

int device_run_job(const DeviceJob* job, const TimingOptions* opts, PointResult* results, char* backend,
                   int backend_len, char* message, int message_len, ProgressFn progress, void* user) {
  put(message, message_len, "");
  return guarded(message, message_len, [&] {
    for (int i = 0; i < job->npoints; ++i) results[i] = PointResult{};
    if (job->kind == kind_gemm) {
      put(backend, backend_len, "cublaslt");
      std::string note;
      cuda::run_gemm_job(*job, *opts, results, progress, user, note);
      put(message, message_len, note);
    } else if (job->kind == kind_attn_prefill || job->kind == kind_attn_decode) {
      put(backend, backend_len, "costdsl_cuda");
      cuda::run_attention_job(*job, *opts, results, progress, user);
    } else if (job->kind >= 0 && job->kind < kind_count) {
      put(backend, backend_len, "costdsl_cuda");
      cuda::run_memory_job(*job, *opts, results, progress, user);
    } else {
      throw std::runtime_error("unknown kind id " + std::to_string(job->kind));
    }
    CP_CHECK(cudaStreamSynchronize(cuda::stream()));
  });
}

void device_release() {
  cuda::release_gemm();
  cudaDeviceSynchronize();
  cudaGetLastError();
}

}  // namespace costdsl_prof
