#include "plan.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <stdexcept>

#include <fmt/format.h>

#include "costdsl/kernel.hpp"
#include "costdsl/kernels/all.hpp"

namespace costdsl::profiler {

namespace k = costdsl::kernels;
namespace dev = costdsl_prof;

const std::vector<std::string>& supported_kinds() {
  static const std::vector<std::string> kinds{
      std::string(k::Gemm::kind),           std::string(k::RmsNorm::kind),       std::string(k::FusedAddRmsNorm::kind),
      std::string(k::SiluAndMul::kind),     std::string(k::Rope::kind),          std::string(k::Embedding::kind),
      std::string(k::KvCacheAppend::kind),  std::string(k::AttnPrefill::kind),   std::string(k::AttnDecode::kind)};
  return kinds;
}

dev::KindId kind_id(std::string_view kind) {
  const auto& kinds = supported_kinds();
  for (std::size_t i = 0; i < kinds.size(); ++i)
    if (kinds[i] == kind) return static_cast<dev::KindId>(i);  // same order as KindId
  std::string known;
  for (const auto& s : kinds) known += (known.empty() ? "" : ", ") + s;
  throw std::invalid_argument(fmt::format("kind '{}' is not measured by costdsl-profile (measured: {}{})", kind,
                                          known,
                                          kind == "all_reduce" || kind == "all_gather" || kind == "reduce_scatter" ||
                                                  kind == "all_to_all" || kind == "p2p"
                                              ? "; collectives need several GPUs and stay analytic"
                                              : ""));
}
static_assert(dev::kind_gemm == 0 && dev::kind_attn_decode == 8 && dev::kind_count == 9);

namespace {

int device_dtype(Dtype d) {
  switch (d) {
    case Dtype::bf16: return dev::dtype_bf16;
    case Dtype::fp8: return dev::dtype_fp8_e4m3;
    default: return dev::dtype_other;
  }
}

// The CUDA side's view of a config: dtype + dims (device_api.h documents the layout).
dev::DeviceJob device_config(const k::Gemm::Config& c) {
  dev::DeviceJob d;
  d.kind = dev::kind_gemm;
  d.dtype = device_dtype(c.dtype);
  d.dims[0] = std::int64_t(c.n.value);
  d.dims[1] = std::int64_t(c.k.value);
  return d;
}
dev::DeviceJob device_config(const k::RmsNorm::Config& c) {
  dev::DeviceJob d;
  d.kind = dev::kind_rms_norm;
  d.dtype = device_dtype(c.dtype);
  d.dims[0] = std::int64_t(c.hidden.value);
  return d;
}
dev::DeviceJob device_config(const k::FusedAddRmsNorm::Config& c) {
  dev::DeviceJob d;
  d.kind = dev::kind_fused_add_rms_norm;
  d.dtype = device_dtype(c.dtype);
  d.dims[0] = std::int64_t(c.hidden.value);
  return d;
}
dev::DeviceJob device_config(const k::SiluAndMul::Config& c) {
  dev::DeviceJob d;
  d.kind = dev::kind_silu_and_mul;
  d.dtype = device_dtype(c.dtype);
  d.dims[0] = std::int64_t(c.intermediate.value);
  return d;
}
dev::DeviceJob device_config(const k::Rope::Config& c) {
  dev::DeviceJob d;
  d.kind = dev::kind_rope;
  d.dtype = device_dtype(c.dtype);
  d.dims[0] = std::int64_t(c.num_qo_heads.value);
  d.dims[1] = std::int64_t(c.num_kv_heads.value);
  d.dims[2] = std::int64_t(c.head_dim.value);
  return d;
}
dev::DeviceJob device_config(const k::Embedding::Config& c) {
  dev::DeviceJob d;
  d.kind = dev::kind_embedding;
  d.dtype = device_dtype(c.dtype);
  d.dims[0] = std::int64_t(c.vocab.value);
  d.dims[1] = std::int64_t(c.hidden.value);
  return d;
}
dev::DeviceJob device_config(const k::KvCacheAppend::Config& c) {
  dev::DeviceJob d;
  d.kind = dev::kind_kv_cache_append;
  d.dtype = device_dtype(c.kv_dtype);
  d.dims[0] = std::int64_t(c.num_kv_heads.value);
  d.dims[1] = std::int64_t(c.head_dim.value);
  return d;
}
dev::DeviceJob device_config(const k::AttnPrefill::Config& c) {
  dev::DeviceJob d;
  d.kind = dev::kind_attn_prefill;
  d.dtype = device_dtype(c.dtype);
  d.dims[0] = std::int64_t(c.num_qo_heads.value);
  d.dims[1] = std::int64_t(c.num_kv_heads.value);
  d.dims[2] = std::int64_t(c.head_dim.value);
  return d;
}
dev::DeviceJob device_config(const k::AttnDecode::Config& c) {
  dev::DeviceJob d;
  d.kind = dev::kind_attn_decode;
  d.dtype = device_dtype(c.kv_dtype);
  d.dims[0] = std::int64_t(c.num_qo_heads.value);
  d.dims[1] = std::int64_t(c.num_kv_heads.value);
  d.dims[2] = std::int64_t(c.head_dim.value);
  return d;
}

// The per-rank configs of one kind over the shapes (duplicates removed later).
template <class K>
std::vector<typename K::Config> configs(const std::vector<RankShape>& shapes, const PlanOptions& o) {
  std::vector<typename K::Config> out;
  for (const RankShape& s : shapes) {
    const Dim h{s.hidden}, qo{s.num_qo_heads}, kv{s.num_kv_heads}, hd{s.head_dim}, inter{s.intermediate},
        vocab{s.vocab};
    if constexpr (std::is_same_v<K, k::Gemm>) {
      for (Dtype d : o.gemm_dtypes) {
        // cuBLASLt's fp8 GEMM reads operands already in fp8 (cuda/gemm.cu): no quantize runs.
        const Dtype in = d == Dtype::fp8 ? Dtype::fp8 : Dtype::bf16;
        out.push_back({d, Dim{(s.num_qo_heads + 2ull * s.num_kv_heads) * s.head_dim}, h, in});  // qkv_proj
        out.push_back({d, h, Dim{std::uint64_t(s.num_qo_heads) * s.head_dim}, in});             // o_proj
        out.push_back({d, Dim{2ull * s.intermediate}, h, in});                                  // up_gate_proj
        out.push_back({d, h, inter, in});                                                       // down_proj
        out.push_back({d, vocab, h, in});                                                       // lm_head
      }
    } else if constexpr (std::is_same_v<K, k::RmsNorm> || std::is_same_v<K, k::FusedAddRmsNorm>) {
      out.push_back({o.act_dtype, h});
    } else if constexpr (std::is_same_v<K, k::SiluAndMul>) {
      out.push_back({o.act_dtype, inter});
    } else if constexpr (std::is_same_v<K, k::Rope>) {
      out.push_back({o.act_dtype, qo, kv, hd});
    } else if constexpr (std::is_same_v<K, k::AttnPrefill>) {
      out.push_back({o.act_dtype, qo, kv, hd, 0});  // the tables hold full causal prefills only
    } else if constexpr (std::is_same_v<K, k::Embedding>) {
      out.push_back({o.act_dtype, vocab, h});
    } else if constexpr (std::is_same_v<K, k::KvCacheAppend>) {
      for (Dtype d : o.kv_dtypes) out.push_back({d, kv, hd});
    } else if constexpr (std::is_same_v<K, k::AttnDecode>) {
      for (Dtype d : o.kv_dtypes) out.push_back({d, qo, kv, hd});
    }
  }
  return out;
}

template <class K>
Dtype compute_dtype(const typename K::Config& c) {
  if constexpr (std::is_same_v<K, k::Gemm>) return c.dtype;
  else if constexpr (std::is_same_v<K, k::AttnPrefill>) return c.dtype;
  else if constexpr (std::is_same_v<K, k::AttnDecode>) return k::AttnDecode::act_dtype(c);
  else return Dtype::fp32;
}

template <class K>
void add_jobs(const std::vector<RankShape>& shapes, const PlanOptions& o, std::vector<Job>& jobs) {
  std::set<std::vector<std::string>> seen;
  const ProfileSchema schema = profile_schema<K>();
  for (const auto& c : configs<K>(shapes, o)) {
    K::validate(c);
    Job j;
    j.kind = std::string(K::kind);
    j.schema = schema;
    j.key = profile_key(c);
    if (!seen.insert(j.key).second) continue;
    for (std::size_t i = 0; i < schema.config.size(); ++i)
      j.label += fmt::format("{}{}={}", i ? " " : "", schema.config[i].name, j.key[i]);
    const auto grid = K::sweep(c);
    for (std::size_t i = 0; i < grid.size(); ++i) {
      if (o.point_stride > 1 && i % o.point_stride != 0 && i + 1 != grid.size()) continue;
      const auto p = K::point(c, grid[i]);
      if constexpr (requires { K::calls(grid[i]); })
        if (K::calls(grid[i]) != 1.0)
          throw std::logic_error(fmt::format("{}: the sweep has a point with {} identical calls; the profiler "
                                             "measures one call per point",
                                             K::kind, K::calls(grid[i])));
      std::vector<double> row(p.begin(), p.end());
      for (double v : row) {
        if (v < 0 || v != std::floor(v))
          throw std::logic_error(fmt::format("{}: sweep point value {} is not a whole number", K::kind, v));
        j.device_inputs.push_back(static_cast<std::int64_t>(v));
      }
      j.points.push_back(std::move(row));
      j.flops.push_back(K::flops(c, grid[i]));
      j.bytes.push_back(K::bytes(c, grid[i]));
    }
    j.compute_dtype = compute_dtype<K>(c);
    j.device = device_config(c);
    jobs.push_back(std::move(j));
  }
}

}  // namespace

std::vector<Job> plan_jobs(const std::vector<RankShape>& shapes, const PlanOptions& opts) {
  const std::vector<std::string> chosen = opts.kinds.empty() ? supported_kinds() : opts.kinds;
  for (const auto& kind : chosen) kind_id(kind);  // reject unknown kinds up front
  auto wanted = [&](std::string_view kind) { return std::find(chosen.begin(), chosen.end(), kind) != chosen.end(); };
  std::vector<Job> jobs;
  if (wanted(k::Gemm::kind)) add_jobs<k::Gemm>(shapes, opts, jobs);
  if (wanted(k::RmsNorm::kind)) add_jobs<k::RmsNorm>(shapes, opts, jobs);
  if (wanted(k::FusedAddRmsNorm::kind)) add_jobs<k::FusedAddRmsNorm>(shapes, opts, jobs);
  if (wanted(k::SiluAndMul::kind)) add_jobs<k::SiluAndMul>(shapes, opts, jobs);
  if (wanted(k::Rope::kind)) add_jobs<k::Rope>(shapes, opts, jobs);
  if (wanted(k::Embedding::kind)) add_jobs<k::Embedding>(shapes, opts, jobs);
  if (wanted(k::KvCacheAppend::kind)) add_jobs<k::KvCacheAppend>(shapes, opts, jobs);
  if (wanted(k::AttnPrefill::kind)) add_jobs<k::AttnPrefill>(shapes, opts, jobs);
  if (wanted(k::AttnDecode::kind)) add_jobs<k::AttnDecode>(shapes, opts, jobs);
  return jobs;
}

// Mirrors the CUDA side's timing loop (cuda/timing.cuh) with a roofline guess of each
// point's time. The efficiencies are guesses for our kernels, not measurements.
double estimate_seconds(const Job& job, const GpuSpec& gpu, const costdsl_prof::TimingOptions& t) {
  double flop_eff = 0.6, byte_eff = 0.6;
  if (job.kind == k::AttnPrefill::kind) flop_eff = 0.12;  // our straightforward wmma kernel, not FA3
  const double peak = gpu.supports(job.compute_dtype) ? gpu.peak_flops(job.compute_dtype) : gpu.peak_flops(Dtype::fp32);
  double total_ms = 50;  // allocation and fill per job
  for (std::size_t i = 0; i < job.points.size(); ++i) {
    const double ms = 1e3 * std::max(job.flops[i] / (flop_eff * peak), job.bytes[i] / (byte_eff * gpu.hbm_bandwidth)) +
                      0.004;
    const int algos = job.kind == k::Gemm::kind ? std::max(1, ms > 1.0 ? std::min(2, t.gemm_algos) : t.gemm_algos) : 1;
    double runs = 0;
    if (ms < t.graph_below_ms) {
      runs = 1 + double(t.graph_launches) * (std::max(1, t.warmup) + t.reps);
    } else if (ms > 4 * t.target_ms) {
      runs = 1;  // the probe is the sample
    } else {
      const int reps = std::clamp(int(t.target_ms / ms), 1, std::max(1, t.reps));
      const int warm = ms * t.warmup > t.target_ms ? 0 : t.warmup;
      runs = 1 + warm + reps;
    }
    total_ms += algos * runs * ms;
  }
  return total_ms / 1e3;
}

std::string format_number(double v) {
  if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 9.007199254740992e15)
    return fmt::format("{}", static_cast<long long>(v));
  return fmt::format("{:.6g}", v);
}

std::string format_profile_csv(const ProfileSchema& schema, const std::vector<CsvRow>& rows,
                               const std::vector<std::string>& comments) {
  auto check_cell = [](std::string_view what, std::string_view s) {
    if (s.empty()) throw std::invalid_argument(fmt::format("profile csv: {} is empty", what));
    if (s.find_first_of(",\"\n\r") != std::string_view::npos)
      throw std::invalid_argument(fmt::format("profile csv: {} '{}' holds a comma, quote or newline", what, s));
  };
  std::string out;
  for (const auto& c : comments) {
    if (c.find_first_of("\n\r") != std::string::npos)
      throw std::invalid_argument("profile csv: a comment holds a newline");
    out += "# " + c + "\n";
  }
  std::vector<std::string> header;
  for (const auto& c : schema.config) header.push_back(c.name);
  for (const auto& n : schema.inputs) header.push_back(n);
  header.emplace_back("backend");
  header.emplace_back("time_ms");
  out += fmt::format("{}\n", fmt::join(header, ","));
  for (const CsvRow& r : rows) {
    if (r.config.size() != schema.config.size() || r.inputs.size() != schema.inputs.size())
      throw std::invalid_argument(fmt::format("profile csv '{}': a row has {} config and {} input cells, the schema "
                                              "{} and {}",
                                              schema.kind, r.config.size(), r.inputs.size(), schema.config.size(),
                                              schema.inputs.size()));
    std::vector<std::string> cells;
    for (std::size_t i = 0; i < r.config.size(); ++i) {
      check_cell(schema.config[i].name, r.config[i]);
      cells.push_back(r.config[i]);
    }
    for (double v : r.inputs) {
      if (!std::isfinite(v)) throw std::invalid_argument("profile csv: an input value is not finite");
      cells.push_back(format_number(v));
    }
    check_cell("backend", r.backend);
    cells.push_back(r.backend);
    if (!std::isfinite(r.time_ms) || r.time_ms <= 0)
      throw std::invalid_argument(fmt::format("profile csv: time_ms {} is not a finite value > 0", r.time_ms));
    cells.push_back(fmt::format("{:.6g}", r.time_ms));
    out += fmt::format("{}\n", fmt::join(cells, ","));
  }
  return out;
}

std::string canonical_gpu_name(const GpuCatalog& catalog, std::string_view device_name) {
  std::string_view name = device_name;
  while (!name.empty() && name.back() == ' ') name.remove_suffix(1);
  if (catalog.contains(name)) return catalog.find(name).name;
  constexpr std::string_view nvidia = "NVIDIA ";
  if (name.size() > nvidia.size() && detail::fold_gpu_name(name.substr(0, nvidia.size())) ==
                                         detail::fold_gpu_name(nvidia) &&
      catalog.contains(name.substr(nvidia.size())))
    return catalog.find(name.substr(nvidia.size())).name;
  throw InputError(fmt::format("GPU '{}' is not in gpus.json (no alias matches); add an alias there or pass "
                               "--gpu <canonical name>",
                               device_name));
}

}  // namespace costdsl::profiler
