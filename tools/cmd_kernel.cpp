// costdsl kernels / costdsl kernel <kind>: list the catalogue, evaluate one leaf.
// Flags come from each kind's reflected Config and Input (`--num-kv-heads` for
// num_kv_heads), so a new kernel file needs no CLI code.
#include <algorithm>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include <boost/mp11/algorithm.hpp>

#include "cli_common.hpp"
#include "commands.hpp"
#include "output.hpp"
#include "costdsl/expert_load.hpp"
#include "costdsl/kernel.hpp"
#include "costdsl/kernels/all.hpp"

namespace costdsl::cli {

namespace {

inline std::string flag_of(std::string_view field) {
  std::string f = "--";
  for (char c : field) f += c == '_' ? '-' : c;
  return f;
}

// A required dim and an optional dtype (default bf16): non-template, so their option
// callbacks are compiled once, not once per field of every kernel kind.
void add_dim_option(CLI::App& cmd, const std::string& flag, Dim& v, std::string_view name, const char* group) {
  cmd.add_option_function<std::uint64_t>(flag, [&v](const std::uint64_t& x) { v = Dim(x); }, std::string(name))
      ->check(non_negative)
      ->required()
      ->group(group);
}
void add_dtype_option(CLI::App& cmd, const std::string& flag, Dtype& v, const char* group) {
  v = Dtype::bf16;
  cmd.add_option_function<std::string>(flag, [&v, flag](const std::string& x) { v = parse_dtype(x, flag); },
                                       "dtype: fp32, bf16, fp16, fp8, fp4, mxfp4 (default bf16)")
      ->group(group);
}

// An expert load by its table name (expert_load.hpp), balanced by
// default: what a Timing without a model family binds.
void add_expert_load_option(CLI::App& cmd, const std::string& flag, ExpertLoad& v, const char* group) {
  v = ExpertLoad::balanced;
  cmd.add_option_function<std::string>(
         flag,
         [&v, flag](const std::string& x) {
           if (!parse_field_text(x, v))
             throw InputError(fmt::format("{} {}: not one of {}", flag, x, expert_load_names()));
         },
         "the routing the table measured: " + expert_load_names() + " (default balanced)")
      ->group(group);
}

// One option per reflected field: dims and counts are required numbers, dtypes
// default to bf16, an expert load to balanced.
template <class S>
void add_field_options(CLI::App& cmd, S& s, const char* group) {
  for_each_field(s, [&](std::string_view name, auto& v) {
    using T = std::remove_cvref_t<decltype(v)>;
    const std::string flag = flag_of(name);
    if constexpr (std::is_same_v<T, Dim>) {
      add_dim_option(cmd, flag, v, name, group);
    } else if constexpr (std::is_same_v<T, Dtype>) {
      add_dtype_option(cmd, flag, v, group);
    } else if constexpr (std::is_same_v<T, ExpertLoad>) {
      add_expert_load_option(cmd, flag, v, group);
    } else if (untabled_field<S>(name)) {  // a shape-only field (attn_prefill's window): 0 = its neutral value
      cmd.add_option(flag, v, std::string(name))->check(non_negative)->capture_default_str()->group(group);
    } else {
      cmd.add_option(flag, v, std::string(name))->check(non_negative)->required()->group(group);
    }
  });
}

// What one `costdsl kernel <kind>` evaluation found, with the kind's fields already
// rendered: printed by one non-template function, so the report's fmt and JSON code is
// compiled once rather than once per kernel kind (this TU was the CLI's slowest).
struct KernelRun {
  std::string_view kind;
  Family family;
  const GpuSpec* gpu;
  nlohmann::json config_json, input_json;
  std::string config_text, input_text;
  Metrics metrics;
  std::string backend;
  double lower_bound_s;
};

void print_kernel_run(const KernelRun& r, bool json) {
  const Metrics& m = r.metrics;
  const bool analytic = has(m.coverage, Coverage::analytic);
  const std::string source = analytic ? "roofline" : (m.time_s > 0 ? "profile" : "none");
  if (json) {
    nlohmann::json j{{"kind", r.kind},           {"gpu", r.gpu->name},
                     {"config", r.config_json},  {"input", r.input_json},
                     {"time_ms", m.time_ms()},   {"flops", m.flops},
                     {"bytes", m.bytes},         {"energy_j", m.energy_j},
                     {"coverage", coverage_json(m.coverage)},
                     {"backend", r.backend.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.backend)},
                     {"source", source},         {"lower_bound_ms", r.lower_bound_s * 1e3}};
    cli::out() << j.dump(2) << '\n';
    return;
  }
  const GpuSpec& gpu = *r.gpu;
  cli::out() << fmt::format("{} on {} ({}{})\n", r.kind, gpu.name, source, r.backend.empty() ? "" : ": " + r.backend);
  cli::out() << fmt::format("  config   {}\n  input    {}\n", r.config_text, r.input_text);
  cli::out() << fmt::format("  time     {:.4f} ms   [{}]\n", m.time_ms(), coverage_text(m));
  cli::out() << fmt::format("  work     {}, {}, {:.3g} J\n", si(m.flops, "FLOP"), si(m.bytes, "B"), m.energy_j);
  if (m.time_s > 0) {
    const double flops_rate = m.flops / m.time_s, byte_rate = m.bytes / m.time_s;
    std::string compute;
    if (gpu.peak_bf16 && m.flops > 0)
      compute = fmt::format(" ({:.1f}% of the {:.0f} TFLOP/s bf16 peak)", 100 * flops_rate / *gpu.peak_bf16,
                            *gpu.peak_bf16 / 1e12);
    const bool comm = r.family == Family::communication;
    const double bw = comm ? gpu.intra_node_bandwidth : gpu.hbm_bandwidth;
    cli::out() << fmt::format("  achieved {:.1f} TFLOP/s{}\n           {:.0f} GB/s ({:.1f}% of {:.0f} GB/s {})\n",
                             flops_rate / 1e12, compute, byte_rate / 1e9, 100 * byte_rate / bw, bw / 1e9,
                             comm ? "NVLink" : "HBM");
    cli::out() << fmt::format("  bound    {:.4f} ms at the hardware roof (efficiency {:.0f}%)\n",
                             r.lower_bound_s * 1e3, 100 * r.lower_bound_s / m.time_s);
  }
}

template <KernelDef K>
void add_kernel_kind(CLI::App& parent) {
  struct State {
    typename K::Config config{};
    typename K::Input input{};
    TimingOptions timing;
    std::vector<std::string> backends = K::default_backends();
    bool json = false;
  };
  auto st = std::make_shared<State>();
  auto* cmd = parent.add_subcommand(std::string(K::kind), fmt::format("Evaluate one {} leaf ({} family)", K::kind,
                                                                       name(K::family)));
  st->timing.add(*cmd);
  add_field_options(*cmd, st->config, "Config (per-rank identity)");
  add_field_options(*cmd, st->input, "Input (per-call shape)");
  cmd->add_option("--backends", st->backends, "candidate backends; the fastest measured one wins")
      ->delimiter(',')
      ->capture_default_str();
  cmd->add_flag("--json", st->json, "print one JSON object");
  // [=]: cmd is used only by the kinds with a weight_dtype (the if constexpr below), and naming it
  // in the capture list is an unused capture (clang's -Wunused-lambda-capture, an error under werror).
  cmd->callback([=] {
    // Weight-only formats are the exception: the expert weights default to the activations' dtype.
    if constexpr (requires { st->config.weight_dtype; })
      if (cmd->count("--weight-dtype") == 0) st->config.weight_dtype = st->config.dtype;
    const Timing timing = st->timing.make();
    const Kernel<K> kernel(timing, st->config, st->backends);
    const Metrics m = kernel.eval(st->input);
    const bool json = st->json;
    print_kernel_run({K::kind, K::family, &timing.gpu(), json ? fields_json(st->config) : nlohmann::json(),
                      json ? fields_json(st->input) : nlohmann::json(), json ? "" : fields_text(st->config),
                      json ? "" : fields_text(st->input), m,
                      m.backend == no_backend ? "" : st->backends[m.backend], kernel.lower_bound_s(st->input)},
                     json);
  });
}

}  // namespace

void add_kernel_commands(CLI::App& app) {
  auto* list = app.add_subcommand("kernels", "List the kernel kinds (L1) with their config and input fields");
  auto json_out = std::make_shared<bool>(false);
  list->add_flag("--json", *json_out, "print JSON");
  list->callback([json_out] {
    nlohmann::json out = nlohmann::json::array();
    struct Row {
      std::string kind, family, config, input;
    };
    std::vector<Row> rows;
    boost::mp11::mp_for_each<kernels::All>([&](auto k) {
      using K = decltype(k);
      const auto cfg = field_names<typename K::Config>(), in = field_names<typename K::Input>();
      out.push_back({{"kind", K::kind}, {"family", name(K::family)}, {"config", cfg}, {"input", in},
                     {"axes", std::vector<std::string>(K::axes.begin(), K::axes.end())},
                     {"backends", K::default_backends()}});
      rows.push_back({std::string(K::kind), std::string(name(K::family)), fmt::to_string(fmt::join(cfg, ", ")),
                      fmt::to_string(fmt::join(in, ", "))});
    });
    if (*json_out) {
      cli::out() << out.dump(2) << '\n';
      return;
    }
    // Columns as wide as their longest entry (a width on fmt::join would pad each field).
    std::size_t kind_w = 0, family_w = 0, config_w = 0;
    for (const Row& r : rows) {
      kind_w = std::max(kind_w, r.kind.size());
      family_w = std::max(family_w, r.family.size());
      config_w = std::max(config_w, r.config.size());
    }
    for (const Row& r : rows)
      cli::out() << fmt::format("{:<{}}  {:<{}}  config: {:<{}}  input: {}\n", r.kind, kind_w, r.family, family_w,
                               r.config, config_w, r.input);
  });
  auto* kernel = app.add_subcommand("kernel", "Evaluate one kernel leaf: costdsl kernel <kind> --gpu G --<field> V ...");
  kernel->require_subcommand(0, 1);
  kernel->allow_extras();
  boost::mp11::mp_for_each<kernels::All>([&](auto k) { add_kernel_kind<decltype(k)>(*kernel); });
  // No kind matched: name what was given and what exists.
  kernel->callback([kernel] {
    if (!kernel->get_subcommands().empty()) return;
    std::string known;
    boost::mp11::mp_for_each<kernels::All>([&](auto k) { known += (known.empty() ? "" : ", ") + std::string(decltype(k)::kind); });
    const auto extras = kernel->remaining();
    if (extras.empty()) throw InputError("costdsl kernel needs a kind: " + known);
    throw InputError("unknown kernel kind '" + extras.front() + "' (known: " + known + ")");
  });
}

}  // namespace costdsl::cli
