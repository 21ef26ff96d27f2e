// The host side of costdsl-profile: which kernel instances to measure (each kind's
// sweep grid over the chosen per-rank shapes), the time estimate, the profile CSV
// text (exactly the format costdsl::load_profile_csv reads) and the GPU name.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "costdsl/dtype.hpp"
#include "costdsl/gpu_catalog.hpp"
#include "costdsl/profile_csv.hpp"
#include "device_api.h"
#include "shapes.hpp"

namespace costdsl::profiler {

// The kinds costdsl-profile measures, in run order. Collectives (all_reduce, ...) are
// not here: one GPU cannot measure them, they stay analytic.
const std::vector<std::string>& supported_kinds();
costdsl_prof::KindId kind_id(std::string_view kind);  // throws std::invalid_argument

// One kernel instance (a config of one kind) and its grid.
struct Job {
  std::string kind;
  ProfileSchema schema;                      // profile_schema<K>()
  std::vector<std::string> key;              // profile_key(config): the CSV config cells
  std::string label;                         // "dtype=bf16 n=4096 k=4096"
  std::vector<std::vector<double>> points;   // K::point(config, input) per sweep input: the CSV input cells
  std::vector<std::int64_t> device_inputs;   // the same, as integers, flattened (DeviceJob::inputs)
  std::vector<double> flops, bytes;          // K::flops / K::bytes per point (for the estimate)
  Dtype compute_dtype = Dtype::bf16;         // the tensor path the estimate charges flops to
  costdsl_prof::DeviceJob device;            // inputs pointer left null; set it before running

  costdsl_prof::DeviceJob device_job() const {
    costdsl_prof::DeviceJob d = device;
    d.npoints = static_cast<int>(points.size());
    d.ninputs = points.empty() ? 0 : static_cast<int>(points.front().size());
    d.inputs = device_inputs.data();
    return d;
  }
};

struct PlanOptions {
  std::vector<std::string> kinds;        // empty: supported_kinds()
  std::vector<Dtype> gemm_dtypes{Dtype::bf16, Dtype::fp8};
  std::vector<Dtype> kv_dtypes{Dtype::bf16};
  Dtype act_dtype = Dtype::bf16;
  std::size_t point_stride = 1;          // keep every n-th grid point (quick runs); the last is always kept
};

// Jobs of every chosen kind over the rank shapes, configs deduplicated (first
// occurrence kept), kinds in supported_kinds() order, each grid in the kind's sweep order.
std::vector<Job> plan_jobs(const std::vector<RankShape>& shapes, const PlanOptions& opts);

// Rough wall time of measuring the jobs on `gpu` with these timing options (seconds).
double estimate_seconds(const Job& job, const GpuSpec& gpu, const costdsl_prof::TimingOptions& t);

// One CSV row.
struct CsvRow {
  std::vector<std::string> config;  // schema.config order
  std::vector<double> inputs;       // schema.inputs order
  std::string backend;
  double time_ms = 0;
};

// The table text: `# comment` lines, the header (config, inputs, backend, time_ms),
// one line per row. Throws std::invalid_argument on a row that the loader would reject.
std::string format_profile_csv(const ProfileSchema& schema, const std::vector<CsvRow>& rows,
                               const std::vector<std::string>& comments = {});

// A number as a CSV cell: integers without a decimal point, others with 6 significant digits.
std::string format_number(double v);

// The catalog's canonical name of a CUDA device name ("NVIDIA H200" → "h200_sxm");
// a leading "NVIDIA " is optional. Throws costdsl::InputError naming --gpu when unknown.
std::string canonical_gpu_name(const GpuCatalog& catalog, std::string_view device_name);

}  // namespace costdsl::profiler
