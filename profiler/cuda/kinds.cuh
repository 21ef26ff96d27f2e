// The per-kind entry points of the CUDA side (internal to profiler/cuda). Each
// check_* runs the kind's kernels on small shapes against profiler/reference.hpp and
// throws CudaError / std::runtime_error on a mismatch, returning a one-line summary;
// each run_* measures every point of a job.
#pragma once
#include <string>

#include "../device_api.h"

namespace costdsl_prof::cuda {

std::string check_memory_kind(int kind);
void run_memory_job(const DeviceJob& job, const TimingOptions& o, PointResult* out, ProgressFn progress, void* user);

std::string check_attention(int kind);
void run_attention_job(const DeviceJob& job, const TimingOptions& o, PointResult* out, ProgressFn progress, void* user);

std::string check_gemm();
// `note` receives per-job remarks (e.g. points with no usable algorithm).
void run_gemm_job(const DeviceJob& job, const TimingOptions& o, PointResult* out, ProgressFn progress, void* user,
                  std::string& note);
long long cublaslt_version();  // 0 when built without cuBLASLt
void release_gemm();

}  // namespace costdsl_prof::cuda
