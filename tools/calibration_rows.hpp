#pragma once
// The measured rows the roofline is fitted and checked on, as costdsl kernel calls, and
// their time under a parameter set by the roofline costdsl runs. What `costdsl roofline`
// (tools/cmd_roofline.cpp) serves the fitter (scripts/calibrate_roofline.py): the rows
// are read by the importer's own mapping (aic::read_tables, as `costdsl import
// aiconfigurator`) and by vidur.hpp, and each is timed by its kernel's roofline()
// (Kernel<K> calls the same function for an analytic leaf), so no formula the fit uses
// exists anywhere else.
//
// Calibration directory layout (../shared/calibration/README.md):
//   DIR/aiconfigurator/<gpu>/*.csv   aiconfigurator's tables, one folder per GPU
//   DIR/vidur_h100/*.csv             vidur's H100 elementwise and send/recv medians
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "aiconfigurator.hpp"
#include "costdsl/gpu_catalog.hpp"
#include "costdsl/roofline.hpp"
#include "fields_json.hpp"
#include "vidur.hpp"

namespace costdsl::calib {

// How an all_reduce row is timed: as measured on one backend (that backend's formula,
// +inf where it has no path), or as the kernel times it (the faster of the two: the rows
// that keep the best measured backend per message).
enum class AllReducePath : std::uint8_t { nccl, custom, best };
struct AllReduceCall {
  aic::Call<kernels::AllReduce> call;
  AllReducePath path = AllReducePath::best;
};

using Call = std::variant<aic::Call<kernels::Gemm>, aic::Call<kernels::AttnPrefill>, aic::Call<kernels::AttnDecode>,
                          aic::Call<kernels::MlaPrefill>, aic::Call<kernels::MlaDecode>, aic::Call<kernels::FusedMoe>,
                          AllReduceCall, aic::Call<kernels::RmsNorm>, aic::Call<kernels::SiluAndMul>,
                          aic::Call<kernels::Rope>, aic::Call<kernels::Embedding>, vidur::ResidualAdd,
                          aic::Call<kernels::P2p>, aic::Call<kernels::GdnConv1dPrefill>,
                          aic::Call<kernels::GdnConv1dDecode>, aic::Call<kernels::GdnPrefill>,
                          aic::Call<kernels::GdnDecode>, aic::Call<kernels::DsaSparseMla>>;

struct Row {
  Call call;
  std::uint32_t gpu = 0;    // index into Rows::gpus
  std::uint32_t group = 0;  // index into Rows::groups
  double measured_s = 0;
  double flops = 0;  // the kernel's work (the fitter weights GEMM rows by it)
};

struct Rows {
  std::vector<GpuSpec> gpus;
  std::vector<std::string> groups;  // "<kind>.<dtype>", "all_reduce.<backend>", "p2p.<link>", ...
  std::vector<Row> rows;            // per GPU in the order asked, each source table in file order
  aic::Skips skipped;               // rows read but not mapped or not timeable, by reason
};

// The row's time in seconds on `rf` (its GPU's roofline under the parameters asked).
inline double predict_s(const Row& row, const Roofline& rf) {
  return std::visit(
      [&](const auto& c) -> double {
        using C = std::remove_cvref_t<decltype(c)>;
        if constexpr (std::is_same_v<C, AllReduceCall>) {
          const double bytes = double(c.call.input.bytes);
          const int n = kernels::AllReduce::gpus(c.call.config);
          switch (c.path) {
            case AllReducePath::nccl: return rf.nccl_all_reduce_s(bytes, n);
            case AllReducePath::custom: return rf.custom_all_reduce_s(bytes, n);
            case AllReducePath::best: break;
          }
          return kernels::AllReduce::roofline(rf, c.call.config, c.call.input).time_s;
        } else if constexpr (std::is_same_v<C, vidur::ResidualAdd>) {
          return c.roofline(rf).time_s;
        } else {
          return C::Kind::roofline(rf, c.config, c.input).time_s;
        }
      },
      row.call);
}

// The row's kernel call as JSON: {"kind", "config", "input"} as `costdsl kernel <kind>`
// takes them, and for an all-reduce the path it is timed by ("nccl", "custom", "best").
inline nlohmann::json call_json(const Row& row) {
  return std::visit(
      [](const auto& c) -> nlohmann::json {
        using C = std::remove_cvref_t<decltype(c)>;
        if constexpr (std::is_same_v<C, AllReduceCall>) {
          static constexpr const char* paths[] = {"nccl", "custom", "best"};
          return {{"kind", kernels::AllReduce::kind},
                  {"config", cli::fields_json(c.call.config)},
                  {"input", cli::fields_json(c.call.input)},
                  {"path", paths[static_cast<int>(c.path)]}};
        } else if constexpr (std::is_same_v<C, vidur::ResidualAdd>) {
          return {{"kind", C::kind},
                  {"config", {{"dtype", name(c.dtype)}, {"hidden", c.hidden}}},
                  {"input", {{"tokens", c.tokens}}}};
        } else {
          return {{"kind", C::Kind::kind}, {"config", cli::fields_json(c.config)}, {"input", cli::fields_json(c.input)}};
        }
      },
      row.call);
}

namespace detail {

inline double flops_of(const Call& call) {
  return std::visit(
      [](const auto& c) -> double {
        using C = std::remove_cvref_t<decltype(c)>;
        if constexpr (std::is_same_v<C, AllReduceCall>) return kernels::AllReduce::flops(c.call.config, c.call.input);
        else if constexpr (std::is_same_v<C, vidur::ResidualAdd>) return c.flops();
        else return C::Kind::flops(c.config, c.input);
      },
      call);
}

// "<kind>.<dtype>": the dtype that names the kernel's path (a decode's KV cache, MLA's latent cache).
template <KernelDef K>
std::string group_of(const aic::Call<K>& c) {
  if constexpr (requires { c.config.kv_dtype; }) return fmt::format("{}.{}", K::kind, name(c.config.kv_dtype));
  else if constexpr (requires { c.config.dtype; }) return fmt::format("{}.{}", K::kind, name(c.config.dtype));
  else return std::string(K::kind);
}

class Builder {
 public:
  explicit Builder(Rows& out) : out_(out) {}

  // Adds a row the roofline can time under the built-in parameters; one it cannot (a
  // dtype the GPU has no path for: fp8 on A100) or that it times at no time is a skip.
  void add(Call call, std::uint32_t gpu, const std::string& group, double measured_ms, const std::string& where) {
    Row row{std::move(call), gpu, index_of(group), measured_ms * 1e-3, 0};
    try {
      const double t = predict_s(row, roofline(gpu));
      if (!(t > 0) || std::isnan(t)) {
        out_.skipped.add(fmt::format("{}: the roofline gives no time (no work)", group), where);
        return;
      }
    } catch (const Error& e) {
      out_.skipped.add(fmt::format("{}: {}", group, e.what()), where);
      return;
    }
    row.flops = flops_of(row.call);
    out_.rows.push_back(std::move(row));
  }

 private:
  std::uint32_t index_of(const std::string& group) {
    const auto it = std::find(out_.groups.begin(), out_.groups.end(), group);
    if (it != out_.groups.end()) return static_cast<std::uint32_t>(it - out_.groups.begin());
    out_.groups.push_back(group);
    return static_cast<std::uint32_t>(out_.groups.size() - 1);
  }
  const Roofline& roofline(std::uint32_t gpu) {
    while (rooflines_.size() <= gpu) rooflines_.emplace_back(out_.gpus[rooflines_.size()], RooflineParams{});
    return rooflines_[gpu];
  }

  Rows& out_;
  std::vector<Roofline> rooflines_;
};

inline void add_skips(aic::Skips& to, const aic::Skips& from) {
  for (const auto& [why, e] : from.reasons) {
    aic::Skips::Entry& t = to.reasons[why];
    if (t.count == 0) t.first = e.first;
    t.count += e.count;
  }
}

}  // namespace detail

// Reads every GPU's tables (and vidur's H100 medians with h100_sxm). A GPU without a
// table folder is an InputError naming the folder; a malformed table a DataError.
inline Rows load_rows(const std::filesystem::path& dir, const std::vector<std::string>& gpu_names,
                      const GpuCatalog& catalog) {
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec))
    throw InputError(fmt::format("{}: no such directory (the calibration data: aiconfigurator/<gpu>/ and "
                                 "vidur_h100/ tables, see its README)",
                                 dir.string()));
  Rows out;
  for (const std::string& g : gpu_names) {
    const GpuSpec& spec = catalog.find(g);
    if (std::any_of(out.gpus.begin(), out.gpus.end(), [&](const GpuSpec& s) { return s.name == spec.name; }))
      throw InputError(fmt::format("gpu '{}' is named twice in the GPU list", g));
    out.gpus.push_back(spec);
  }
  detail::Builder build(out);
  for (std::uint32_t gi = 0; gi < out.gpus.size(); ++gi) {
    const std::string& gpu = out.gpus[gi].name;
    const std::filesystem::path tables = dir / "aiconfigurator" / gpu;
    if (!std::filesystem::is_directory(tables, ec))
      throw InputError(fmt::format("{}: no such directory (no aiconfigurator tables for gpu '{}')", tables.string(),
                                   gpu));
    // SGLang's tables and NCCL's: what data/roofline.json was fitted on, when only the
    // plain .csv were read (and those were SGLang's). NCCL's are read whatever the framework,
    // which adds b300_sxm's second NCCL sweep (nccl_trtllm_1.3.0rc10.csv.gz, 189 rows) to
    // `roofline eval`; fitting on TensorRT-LLM's and vLLM's kernels too is a refit, a choice
    // of its own (issue 35).
    aic::ReadOptions only_sglang;
    only_sglang.frameworks = {"sglang"};
    const aic::ReadResult read = aic::read_tables(tables, only_sglang);
    for (const aic::FileReport& f : read.files) detail::add_skips(out.skipped, f.skips);
    // The best measured backend per (GPUs, message): what a framework that picks the
    // faster all-reduce runs, against the kernel's own choice.
    std::map<std::pair<std::uint64_t, std::uint64_t>, std::pair<double, const aic::Row*>> best;
    for (const aic::Row& r : read.rows) {
      const std::string where = fmt::format("{}:{}", r.file, r.line);
      aic::visit_call(r, [&](const auto& c) {
        using K = typename std::remove_cvref_t<decltype(c)>::Kind;
        if constexpr (std::is_same_v<K, kernels::AllReduce>) {
          const AllReducePath path = r.backend == "nccl" ? AllReducePath::nccl : AllReducePath::custom;
          build.add(AllReduceCall{c, path}, gi, "all_reduce." + r.backend, r.time_ms, where);
          auto [it, fresh] = best.try_emplace({c.config.num_gpus.value, c.input.bytes}, r.time_ms, &r);
          if (!fresh && r.time_ms < it->second.first) it->second = {r.time_ms, &r};
        } else if constexpr (std::is_same_v<K, kernels::AllGather>) {
          // Not in the fitted set (the roofline's collective parameters are the all-reduce's):
          // counted, as the fit never saw these rows.
          (void)c;
          out.skipped.add("op_name all_gather: the roofline's collectives are fitted on all-reduces", where);
        } else if constexpr (requires { c.config.expert_load; }) {
          // The roofline routes rows itself (evenly, or skewed by --routing-skew): it is fitted
          // on balanced gating's measurements.
          if (c.config.expert_load != ExpertLoad::balanced)
            out.skipped.add(fmt::format("distribution {}: the roofline is fitted on balanced experts' rows",
                                        name(c.config.expert_load)),
                            where);
          else
            build.add(c, gi, detail::group_of(c), r.time_ms, where);
        } else {
          build.add(c, gi, detail::group_of(c), r.time_ms, where);
        }
      });
    }
    for (const auto& [key, b] : best) {
      const auto& call = std::get<aic::Call<kernels::AllReduce>>(b.second->call);
      build.add(AllReduceCall{call, AllReducePath::best}, gi, fmt::format("all_reduce.best.{}gpu", key.first),
                b.first, fmt::format("{}:{}", b.second->file, b.second->line));
    }
    // vidur measured on H100 SXM (its README): read with that GPU only.
    if (gpu != "h100_sxm") continue;
    const std::filesystem::path vidur_dir = dir / "vidur_h100";
    for (const auto& [file, reader] : {std::pair{"llama2_70b_mlp.csv", &vidur::read_mlp},
                                       std::pair{"dgx_send_recv.csv", &vidur::read_send_recv}}) {
      const std::filesystem::path path = vidur_dir / file;
      if (!std::filesystem::exists(path, ec)) continue;  // the aiconfigurator families still fit
      const vidur::ReadResult v = reader(path);
      detail::add_skips(out.skipped, v.skips);
      for (const vidur::Row& r : v.rows) {
        std::visit(
            [&](const auto& c) {
              using C = std::remove_cvref_t<decltype(c)>;
              std::string group;
              if constexpr (std::is_same_v<C, vidur::ResidualAdd>) {
                group = fmt::format("{}.{}", C::kind, name(c.dtype));
              } else if constexpr (std::is_same_v<typename C::Kind, kernels::P2p>) {
                // Named by the link the roofline sends it over (Roofline::collective's rule).
                group = kernels::P2p::gpus(c.config) <= out.gpus[gi].gpus_per_node ? "p2p.intra_node"
                                                                                   : "p2p.inter_node";
              } else {
                group = detail::group_of(c);
              }
              build.add(c, gi, group, r.time_ms, r.where);
            },
            r.call);
      }
    }
  }
  return out;
}

}  // namespace costdsl::calib
