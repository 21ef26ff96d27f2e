// The plain interface between the host side of costdsl-profile (C++20, costdsl
// headers, fmt, CLI11) and its CUDA side (.cu files, nvcc, C++17). Only POD structs
// and free functions: nothing here may include fmt, nlohmann, Boost or costdsl.
#pragma once
#include <cstddef>
#include <cstdint>

namespace costdsl_prof {

// The kernel kinds the CUDA side can measure. The host maps them to KIND strings.
enum KindId : int {
  kind_gemm = 0,
  kind_rms_norm,
  kind_fused_add_rms_norm,
  kind_silu_and_mul,
  kind_rope,
  kind_embedding,
  kind_kv_cache_append,
  kind_attn_prefill,
  kind_attn_decode,
  kind_count
};

// Storage dtypes the CUDA side knows. Everything but GEMM is bf16 only for now.
enum DtypeId : int { dtype_bf16 = 0, dtype_fp8_e4m3 = 1, dtype_other = 99 };

// One measured kernel instance (a config) and its grid of per-call shapes.
//   kind                 dims[0..3]                       inputs (ninputs per point)
//   gemm                 n, k                             m
//   rms_norm             hidden                           tokens
//   fused_add_rms_norm   hidden                           tokens
//   silu_and_mul         intermediate                     tokens
//   rope                 num_qo_heads, num_kv_heads, hd   tokens
//   embedding            vocab, hidden                    tokens
//   kv_cache_append      num_kv_heads, head_dim           tokens
//   attn_prefill         num_qo_heads, num_kv_heads, hd   batch (1), append (a fresh prefill)
//   attn_decode          num_qo_heads, num_kv_heads, hd   batch, total_kv
struct DeviceJob {
  int kind = kind_gemm;
  int dtype = dtype_bf16;
  std::int64_t dims[4] = {0, 0, 0, 0};
  int npoints = 0;
  int ninputs = 0;
  const std::int64_t* inputs = nullptr;  // npoints × ninputs, row-major
};

struct TimingOptions {
  int reps = 7;              // median of this many timed runs (fewer for long points, see target_ms)
  int warmup = 2;            // untimed runs before measuring
  double target_ms = 25.0;   // per-point measuring budget: reps shrink to fit (never below 1)
  double graph_below_ms = 0.05;  // points shorter than this are timed in CUDA graphs
  int graph_launches = 20;   // launches captured per graph for those points
  int gemm_algos = 4;        // cuBLASLt heuristic algorithms tried (best-of-N)
};

struct PointResult {
  double time_ms = 0;  // median per launch; only meaningful when ok
  int ok = 0;          // 0: not measured (see the job's message)
  int reps = 0;        // timed runs behind the median
  int graph = 0;       // 1: timed in a CUDA graph of `graph_launches` launches
  int algo = -1;       // GEMM: index of the winning heuristic algorithm
};

struct DeviceInfo {
  char name[256] = {0};
  int sm_major = 0, sm_minor = 0, sm_count = 0;
  long long l2_bytes = 0;
  long long global_mem_bytes = 0;
  int driver_version = 0;   // e.g. 13000
  int runtime_version = 0;  // e.g. 13000
  long long cublaslt_version = 0;  // 0: built without cuBLASLt
  int clock_khz = 0;        // SM clock (max), from the attribute query
  int mem_clock_khz = 0;
  int mem_bus_width = 0;
  int compiled_arch = 0;    // COSTDSL_PROF_ARCH, e.g. 90
};

typedef void (*ProgressFn)(void* user, int done, int total);

// 0: a usable GPU (info filled); otherwise no GPU / no driver, `message` says why.
int device_query(DeviceInfo* info, char* message, int message_len);

// Checks the kind's kernels against the CPU references on small shapes.
// 0: passed; 1: failed or unsupported (`message` says why).
int device_self_check(int kind, char* message, int message_len);

// Measures every point of the job. Returns 0 when the job ran (individual points may
// still be !ok), 1 when the job could not run at all (`message` says why).
// `backend` receives the backend name written to the CSV (e.g. "cublaslt").
int device_run_job(const DeviceJob* job, const TimingOptions* opts, PointResult* results, char* backend,
                   int backend_len, char* message, int message_len, ProgressFn progress, void* user);

// Frees the cached device buffers between jobs.
void device_release();

}  // namespace costdsl_prof
