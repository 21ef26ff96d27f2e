// costdsl import aiconfigurator DIR --gpu NAME [--out DIR]: NVIDIA aiconfigurator's
// measurement tables → costdsl profile tables (tools/aiconfigurator.hpp does the reading
// and mapping; this is the command, the report and the shipped-arch config filter).
#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <set>
#include <type_traits>
#include <variant>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include <fmt/format.h>

#include "aiconfigurator.hpp"
#include "cli_common.hpp"
#include "commands.hpp"
#include "output.hpp"
#include "family.hpp"
#include "costdsl/detail/gzip_text.hpp"
#include "shipped_archs.hpp"
#include "costdsl/data_dir.hpp"
#include "costdsl/gpu_catalog.hpp"
#include "costdsl/load_roofline_params.hpp"
#include "costdsl/roofline.hpp"
#include "costdsl/manifest.hpp"
#include "model.hpp"
#include "svg_writer.hpp"  // write_text_file

namespace costdsl::cli {

// The degrees the shipped tables are for: dense archs at TP 1..8; MoE archs with DP
// attention at TP 1..8 inside groups and EP 1..64 experts (every combination an arch
// accepts). Each as shipped (bf16) and in the quantized deployments the serving
// frameworks run (shipped_quantizations).
constexpr std::uint32_t shipped_tp[] = {1, 2, 4, 8};
constexpr std::uint32_t shipped_ep[] = {1, 2, 4, 8, 16, 32, 64};

namespace {

// GEMM and expert weight formats with the KV cache each usually runs with: together they
// cover every GEMM format (bf16, fp8, fp8_block, nvfp4), both KV dtypes, and the fp8 GEMMs
// whose producers quantize their input (TensorRT-LLM's and vLLM's static-scale fp8).
const Quantization::Choice shipped_quantizations[] = {
    {},
    {Dtype::fp8, Dtype::fp8, Dtype::fp8},
    {Dtype::fp8, Dtype::fp8, Dtype::fp8, Quantization::Fp8Producers{true, true, true}},  // static scales, fused
    {Dtype::fp8_block, Dtype::fp8_block, Dtype::bf16},
    {Dtype::fp4, Dtype::fp4, Dtype::fp8},
    // mxfp4 experts under MXFP8 activations (W4A8: gpt-oss on Blackwell in TensorRT-LLM and vLLM).
    {std::nullopt, Dtype::mxfp4, std::nullopt, std::nullopt, true},
};

// Every (kind, config) the shipped archs (and the models of `model_configs`, HuggingFace
// config.json files) bind at those degrees and dtypes, as profile keys.
std::map<std::string, std::set<std::vector<std::string>>, std::less<>> wanted_configs(
    bool for_shipped_archs, const std::vector<std::string>& model_configs) {
  std::map<std::string, std::set<std::vector<std::string>>, std::less<>> out;
  // Configs do not depend on the GPU but for one field: the heads DeepSeek sparse attention's
  // kernel pads a rank's heads up to (ops/attention/dsa.hpp: 64 on Hopper, 128 on Blackwell).
  const Timing hopper = load_timing("h100_sxm", TimingMode::roofline), blackwell = load_timing("b200_sxm", TimingMode::roofline);
  auto collect_on = [&](const ModelOptions& options, const Timing& timing) {
    std::unique_ptr<Model> model;
    try {
      model = open_model(options, timing);
    } catch (const ConfigError&) {
      return;  // a degree this arch does not split into
    } catch (const Error&) {
      // A config.json whose checkpoint format costdsl does not read (Kimi-K2.5's
      // compressed-tensors int4): its shapes still come in under the formats that override it.
      if (options.model_config.empty()) throw;
      return;
    }
    for (const SlotDescription& s : model->manifest().slots) {
      std::vector<std::string> key;
      for (const ConfigField& f : s.config) {
        if (f.name == "gpu" || !f.tabled) continue;  // the profile key has the tabled fields only
        key.push_back(std::visit(
            [](const auto& v) -> std::string {
              using V = std::decay_t<decltype(v)>;
              if constexpr (std::is_same_v<V, Dim>) return std::to_string(v.value);
              else if constexpr (std::is_same_v<V, std::string>) return v;
              else if constexpr (std::is_same_v<V, double>) return fmt::format("{}", v);
              else return fmt::format("{}", fmt::join(v, ","));
            },
            f.value));
      }
      out[s.kind].insert(std::move(key));
    }
  };
  auto collect = [&](const ModelOptions& options) {
    for (const Timing* timing : {&hopper, &blackwell}) collect_on(options, *timing);
  };
  // One model (an arch, or a config.json) at every degree and quantization.
  auto collect_all = [&](ModelOptions options, bool expert_parallel) {
    for (const Quantization::Choice& quantization : shipped_quantizations) {
      for (const std::uint32_t tp : shipped_tp) {
        options.tp = tp;
        options.quantization = quantization;
        if (!expert_parallel) {
          collect(options);
          continue;
        }
        // ep a multiple of tp: DP attention groups over EP experts; ep 1 below tp: the
        // experts split tp ways (TP experts, vLLM's and SGLang's default without EP).
        for (const std::uint32_t ep : shipped_ep) {
          if (ep % tp != 0 && ep != 1) continue;
          options.ep = ep;
          collect(options);
        }
      }
    }
  };
  if (for_shipped_archs) {
    for (const ShippedArch& info : shipped_archs()) {
      ModelOptions options;
      options.arch = info.name;
      collect_all(options, find_family(info.family).expert_parallel);
    }
  }
  for (const std::string& file : model_configs) {
    ModelOptions options;
    options.model_config = file;
    // A config costdsl cannot build (no supported family, a malformed file) is the user's
    // mistake: its message names the file.
    const std::string family = options.resolve().second;
    collect_all(options, find_family(family).expert_parallel);
  }
  return out;
}

// --for-models: config.json files, or the *config.json files of a directory (sorted);
// a directory's files costdsl cannot build are reported and passed over, a named file's
// are an error.
std::vector<std::string> model_config_files(const std::vector<std::string>& args) {
  std::vector<std::string> out;
  for (const std::string& a : args) {
    std::error_code ec;
    if (!std::filesystem::is_directory(a, ec)) {
      out.push_back(a);
      continue;
    }
    std::vector<std::string> found;
    for (const auto& e : std::filesystem::directory_iterator(a, ec)) {
      const std::string name = e.path().filename().string();
      if (e.is_regular_file() && name.size() >= 11 && name.ends_with("config.json") &&
          !name.ends_with("quant_config.json"))
        found.push_back(e.path().string());
    }
    std::sort(found.begin(), found.end());
    for (const std::string& f : found) {
      ModelOptions options;
      options.model_config = f;
      try {
        options.resolve();
        out.push_back(f);
      } catch (const Error& e) {
        cli::out() << fmt::format("--for-models: passing over {}: {}\n", f, e.what());
      }
    }
  }
  return out;
}

void print_import_report(const aic::ReadResult& read, const aic::ImportResult& imp) {
  cli::out() << fmt::format("{:<50} {:<18} {:<18} {:>8} {:>8} {:>8}\n", "source file", "table", "framework", "rows",
                           "mapped", "skipped");
  std::map<std::string, std::size_t> by_framework;  // mapped rows; NCCL's apart (every framework's collective)
  for (const aic::FileReport& f : read.files) {
    const std::string name = std::filesystem::path(f.file).filename().string();
    if (f.table.empty()) {
      cli::out() << fmt::format("{:<50} {:<18} not a measurement table (no latency column): not read\n", name, "-");
      continue;
    }
    if (!f.modelled) {
      cli::out() << fmt::format("{:<50} {:<18} an aiconfigurator table costdsl has no kernel kind for: not read\n", name,
                               f.table);
      continue;
    }
    // The framework and its version (the most rows' version, "+N" more when it has several).
    std::string who = "-";
    if (!f.versions.empty()) {
      const auto top = std::max_element(f.versions.begin(), f.versions.end(),
                                        [](const auto& a, const auto& b) { return a.second < b.second; });
      who = fmt::format("{} {}{}", f.framework, top->first,
                        f.versions.size() > 1 ? fmt::format(" +{}", f.versions.size() - 1) : std::string());
    }
    if (!f.selected) {
      cli::out() << fmt::format("{:<50} {:<18} {:<18} {:>8}   not imported (--framework)\n", name, f.table, who, f.rows);
      continue;
    }
    cli::out() << fmt::format("{:<50} {:<18} {:<18} {:>8} {:>8} {:>8}\n", name, f.table, who, f.rows, f.mapped,
                             f.skips.total());
    if (f.derived > 0)
      cli::out() << fmt::format("  + {} fp8 GEMM rows with fp8 input derived (the measured quantize taken out; {} at "
                               "the GEMM's hardware bound)\n",
                               f.derived, f.derived_at_bound);
    if (f.versions.size() > 1) {
      std::vector<std::string> v;
      for (const auto& [version, n] : f.versions) v.push_back(fmt::format("{} ({} rows)", version, n));
      cli::out() << fmt::format("    versions: {} (each row keeps its own)\n", fmt::join(v, ", "));
    }
    for (const auto& [why, e] : f.skips.reasons)
      cli::out() << fmt::format("    skipped {:>7}  {}  (first: {})\n", e.count, why, e.first);
    if (f.mapped > 0) by_framework[f.table == "nccl" ? std::string("nccl") : f.framework] += f.mapped;
  }
  std::vector<std::string> counts;
  for (const auto& [fw, n] : by_framework) counts.push_back(fmt::format("{} {}", fw, n));
  cli::out() << fmt::format("\nmapped rows by framework: {}\n",
                           counts.empty() ? std::string("none") : fmt::format("{}", fmt::join(counts, ", ")));
  cli::out() << fmt::format("\n{:<18} {:>8} {:>8} {:>10} {:>9} {:>11}\n", "kind", "rows", "configs", "merged",
                           "held out", "not needed");
  for (const aic::KindReport& k : imp.kinds)
    cli::out() << fmt::format("{:<18} {:>8} {:>8} {:>10} {:>9} {:>11}\n", k.kind, k.rows, k.configs, k.merged,
                             k.held_out, k.not_wanted);
  cli::out() << "(merged: duplicate measurements of one point, kept as their median; held out: rows kept back for an "
               "accuracy check; not needed: configs no wanted model uses)\n";
}

// Each framework named by --framework must have measured some table in DIR: else a typo or
// the wrong directory, which would otherwise write nothing (or only NCCL's rows) quietly.
void check_frameworks_found(const aic::ReadResult& read, const aic::ReadOptions& opt, const std::string& dir) {
  std::set<std::string> have;
  for (const aic::FileReport& f : read.files)
    if (f.modelled && !f.table.empty() && f.table != "nccl" && f.rows > 0) have.insert(f.framework);
  for (const std::string& fw : opt.frameworks)
    if (have.count(fw) == 0)
      throw InputError(fmt::format("--framework {}: {} holds no table measured with {} (its tables: {})", fw, dir, fw,
                                   have.empty() ? std::string("none") : fmt::format("{}", fmt::join(have, ", "))));
}

// --framework's entries: FRAMEWORK (every table it measured) or FRAMEWORK:KIND (its tables of
// that kernel kind only, e.g. vllm:fused_moe); the framework's name in any case (VLLM).
void select_frameworks(const std::vector<std::string>& entries, aic::ReadOptions& opt) {
  std::vector<std::string> kinds;
  boost::mp11::mp_for_each<kernels::All>([&](auto k) { kinds.emplace_back(decltype(k)::kind); });
  std::set<std::string> whole;
  for (const std::string& entry : entries) {
    const std::size_t colon = entry.find(':');
    const std::string fw = aic::detail::lower(std::string_view(entry).substr(0, colon));
    if (fw != "sglang" && fw != "trtllm" && fw != "vllm")
      throw InputError(fmt::format("--framework {}: the framework must be sglang, trtllm or vllm", entry));
    opt.frameworks.insert(fw);
    if (colon == std::string::npos) {
      whole.insert(fw);
      continue;
    }
    const std::string kind = entry.substr(colon + 1);
    if (std::find(kinds.begin(), kinds.end(), kind) == kinds.end())
      throw InputError(fmt::format("--framework {}: no kernel kind '{}' (the kinds: {})", entry, kind,
                                   fmt::join(kinds, ", ")));
    opt.framework_kinds[fw].insert(kind);
  }
  for (const std::string& fw : whole) opt.framework_kinds.erase(fw);  // FRAMEWORK alone: all of its kinds
}

// create_directories that fails as bad input (exit 2, naming the flag) rather than with
// std::filesystem's exception (an internal error): DIR may be an existing file.
void make_output_directory(const std::filesystem::path& dir, std::string_view flag) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw InputError(fmt::format("{} '{}': cannot create the directory: {}", flag, dir.string(), ec.message()));
}

}  // namespace

void add_import_command(CLI::App& app) {
  auto* import = app.add_subcommand("import", "Import kernel measurements into costdsl profile tables");
  import->require_subcommand(1);
  struct State {
    std::string dir, gpu, out, held_out_dir;
    std::vector<std::string> frameworks;
    double hold_out = 0;
    bool for_archs = false;
    bool complete = false;
    std::vector<std::string> for_models;
  };
  auto st = std::make_shared<State>();
  auto* aic_cmd = import->add_subcommand(
      "aiconfigurator",
      "Read NVIDIA aiconfigurator tables (gemm, attention, MLA, MoE, NCCL, custom all-reduce, GDN; recognised by "
      "their columns) and write OUT/<gpu>/<kind>.csv");
  aic_cmd->add_option("dir", st->dir, "a directory of aiconfigurator tables (.csv / .txt, plain or .gz), or one table")
      ->required();
  aic_cmd->add_option("--gpu", st->gpu, "the GPU they were measured on (see `costdsl gpus`)")->required();
  aic_cmd->add_option("--out", st->out, "profile directory to write (default: the shipped data/profiles)");
  aic_cmd->add_option("--hold-out", st->hold_out,
                      "hold back PERCENT of each table's grid lines (by a hash of the shape) for an accuracy check")
      ->check(CLI::Range(0.0, 100.0));
  aic_cmd->add_option("--held-out-dir", st->held_out_dir,
                      "write the held-back rows there, in the source schema (for `costdsl validate`)");
  aic_cmd
      ->add_option("--framework", st->frameworks,
                   "import only the tables these frameworks measured (sglang, trtllm, vllm; repeatable or a comma "
                   "list; default: all found), or FRAMEWORK:KIND for that framework's tables of one kernel kind "
                   "(e.g. sglang,vllm:fused_moe). NCCL's tables are read whatever the framework")
      ->delimiter(',')
      ->type_name("FRAMEWORK[:KIND]");
  aic_cmd->add_flag("--for-archs", st->for_archs,
                    "keep only the configs the shipped archs bind (TP 1-8, EP 1-64; bf16, fp8, fp8_block, nvfp4), "
                    "with the measured neighbours that interpolating configs need");
  aic_cmd
      ->add_option("--for-models", st->for_models,
                   "keep the configs these models bind too (or alone, without --for-archs), at the same degrees and "
                   "formats: HuggingFace config.json files, or directories of *config.json (repeatable)")
      ->check(CLI::ExistingPath);
  aic_cmd->add_flag("--complete", st->complete,
                    "write every measured config, gzip-compressed, as the profile directory's complete tables "
                    "(<out>/all/<gpu>/<kind>.csv.gz, read when a model's config misses the tables beside them)");
  aic_cmd->callback([st] {
    const GpuCatalog catalog = GpuCatalog::load_default();
    const std::string gpu = catalog.find(st->gpu).name;
    if (!st->held_out_dir.empty() && st->hold_out == 0) throw InputError("--held-out-dir needs --hold-out PERCENT > 0");
    if (st->complete && (st->for_archs || !st->for_models.empty()))
      throw InputError("--complete writes every measured config: it does not take --for-archs or --for-models");
    aic::ReadOptions read_opt;
    read_opt.keep_text = !st->held_out_dir.empty();
    select_frameworks(st->frameworks, read_opt);
    aic::ReadResult read = aic::read_tables(st->dir, read_opt);
    check_frameworks_found(read, read_opt, st->dir);
    aic::add_fp8_input_gemms(read, Roofline(catalog.find(gpu), load_default_roofline_params()));
    aic::ImportOptions opt;
    opt.hold_out_percent = st->hold_out;
    if (st->for_archs || !st->for_models.empty())
      opt.wanted = wanted_configs(st->for_archs, model_config_files(st->for_models));
    const aic::ImportResult imp = aic::import_rows(read.rows, opt, gpu);
    const std::filesystem::path base = st->out.empty() ? default_data_dir() / "profiles" : std::filesystem::path(st->out);
    const std::filesystem::path out_dir = st->complete ? base / "all" / gpu : base / gpu;
    make_output_directory(out_dir, st->out.empty() ? "the default profile directory" : "--out");
    print_import_report(read, imp);
    for (const auto& [kind, text] : imp.tables) {
      const std::filesystem::path file = out_dir / (kind + (st->complete ? ".csv.gz" : ".csv"));
      write_text_file(file.string(), st->complete ? costdsl::detail::gzip_text(text) : text);
      if (st->complete) {
        // The index ProfileDb::complete_keys reads: the keys as the table parses them.
        ProfileSchema schema;
        aic::detail::with_kind(kind, [&](auto k) { schema = profile_schema<typename decltype(k)::type>(); });
        std::string index = fmt::format("# {}: the (backend, config) groups of {}\n", kind, file.filename().string());
        const ProfileTable table = load_profile_csv_text(text, file.string(), schema);
        for (const ProfileGroup& g : table.groups())
          index += fmt::format("{},{}\n", g.key.backend, fmt::join(g.key.config, ","));
        write_text_file((out_dir / (kind + ".configs")).string(), index);
      }
      cli::out() << fmt::format("wrote {}\n", file.string());
    }
    if (imp.tables.empty()) cli::out() << "no rows could be imported: nothing written\n";
    if (!st->held_out_dir.empty()) {
      make_output_directory(st->held_out_dir, "--held-out-dir");
      std::map<std::string, std::vector<const aic::Row*>> by_file;
      for (const aic::Row* r : imp.held_out) by_file[r->file].push_back(r);
      // Named references, not a structured binding: the lambda below captures the file name,
      // and capturing a structured binding is C++20 that clang before 16 rejects.
      for (auto& entry : by_file) {
        const std::string& file = entry.first;
        std::vector<const aic::Row*>& rows = entry.second;
        std::sort(rows.begin(), rows.end(), [](const auto* a, const auto* b) { return a->line < b->line; });
        const auto rep = std::find_if(read.files.begin(), read.files.end(), [&](const auto& f) { return f.file == file; });
        std::string text = rep->header + "\n";
        for (const aic::Row* r : rows) text += r->text + "\n";
        const std::filesystem::path path =
            std::filesystem::path(st->held_out_dir) / std::filesystem::path(file).filename();
        write_text_file(path.string(), text);
        cli::out() << fmt::format("wrote {} ({} held-out rows)\n", path.string(), rows.size());
      }
    }
  });
}

}  // namespace costdsl::cli
