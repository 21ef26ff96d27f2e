// costdsl archs / describe / manifest / eval: whole models.
#include <charconv>
#include <iostream>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "cli_common.hpp"
#include "commands.hpp"
#include "output.hpp"
#include "family.hpp"
#include "shipped_archs.hpp"
#include "costdsl/describe.hpp"
#include "costdsl/kernels/all.hpp"
#include "costdsl/manifest_json.hpp"
#include "html_report.hpp"
#include "icicle_svg.hpp"

namespace costdsl::cli {

namespace {

// --prefill PREFIX:APPEND, --decode COUNTxKV and --decode-rows, parsed and checked.
struct BatchOptions {
  std::vector<std::string> prefill, decode;
  std::vector<ops::PrefillChunk> chunks;
  std::vector<std::uint32_t> decode_kv;
  std::uint32_t decode_rows = 1;

  void add(CLI::App& cmd) {
    cmd.add_option("--prefill", prefill, "a prefill chunk PREFIX:APPEND (cached tokens : new tokens); repeatable")
        ->type_name("P:A");
    cmd.add_option("--decode", decode, "COUNTxKV decode requests at KV length KV; repeatable")->type_name("NxKV");
    cmd.add_option("--decode-rows", decode_rows,
                   "query rows each decode runs at its KV length: 1 + the draft tokens a speculative (MTP) step "
                   "verifies, e.g. 4 at 3 drafts (a DP-attention arch keeps a request's rows in its group; the draft "
                   "layers are the step's, not the model's: simulate --draft-tokens adds them); default 1")
        ->check(CLI::Range(1u, ops::AttentionBatch::max_decode_rows));
  }

  // Decimal digits only: std::stoull also took " -18446744073709551615" (leading space,
  // then a negation that wraps) as 1.
  static std::uint32_t number(const std::string& text, const std::string& flag, const std::string& whole) {
    std::uint32_t v = 0;
    const char* end = text.data() + text.size();
    const auto [p, ec] = std::from_chars(text.data(), end, v);
    if (text.empty() || text[0] < '0' || text[0] > '9' || ec != std::errc() || p != end)
      throw InputError(flag + " '" + whole + "': '" + text + "' is not a non-negative 32-bit integer");
    return v;
  }

  void parse() {
    for (const auto& p : prefill) {
      const auto colon = p.find(':');
      if (colon == std::string::npos) throw InputError("--prefill '" + p + "' must be PREFIX:APPEND, e.g. 0:4096");
      const std::uint32_t prefix = number(p.substr(0, colon), "--prefill", p);
      const std::uint32_t append = number(p.substr(colon + 1), "--prefill", p);
      if (append == 0) throw InputError("--prefill '" + p + "': a chunk must append at least 1 token");
      chunks.push_back({prefix, append});
    }
    for (const auto& d : decode) {
      const auto x = d.find('x');
      if (x == std::string::npos) throw InputError("--decode '" + d + "' must be COUNTxKV, e.g. 64x2048");
      const std::uint32_t count = number(d.substr(0, x), "--decode", d);
      const std::uint32_t kv = number(d.substr(x + 1), "--decode", d);
      if (kv == 0) throw InputError("--decode '" + d + "': a decode request has at least 1 token of KV");
      if (count > 1u << 20) throw InputError("--decode '" + d + "': more than 2^20 decode requests");
      decode_kv.insert(decode_kv.end(), count, kv);
    }
  }
  ops::AttentionBatch iteration() const { return {chunks, decode_kv, decode_rows}; }
  // "64 decode(s)", or "16 decode(s) of 4 rows" under --decode-rows.
  std::string decodes_text() const {
    return fmt::format("{} decode(s){}", decode_kv.size(), decode_rows > 1 ? fmt::format(" of {} rows", decode_rows) : "");
  }
};

// The per-node tree: each node's contribution to the total (inside a Scale,
// times its copies) and share; scaled nodes also show their per-copy time.
void print_tree(const Manifest& m, std::span<const Metrics> node_metrics, std::span<const Metrics> row,
                       const std::vector<std::string>& backends_won) {
  const double total = node_metrics[0].time_s;
  auto line = [&](const std::string& name, double per_copy_s, double copies, const std::string& tail) {
    const double contribution = per_copy_s * copies;
    const std::string per_copy = copies > 1 ? fmt::format("  ({:.4f} ms ×{})", per_copy_s * 1e3, copies) : "";
    cli::out() << fmt::format("{:<58} {:>10.4f} ms {:>6.2f}%{}{}\n", name, contribution * 1e3,
                             total > 0 ? 100 * contribution / total : 0.0, per_copy, tail);
  };
  auto walk = [&](std::size_t i, int depth, double copies, auto& self) -> void {
    const FlatNode& n = m.tree.nodes()[i];
    const std::string indent(static_cast<std::size_t>(depth) * 2, ' ');
    const double t = node_metrics[i].time_s;
    auto children = [&](int d, double c) {
      for (std::uint32_t k = n.first; k < n.first + n.count; ++k) self(k, d, c, self);
    };
    switch (n.kind) {
      case NodeKind::leaf: {
        const SlotDescription& s = m.slots[n.first];
        const Coverage cov = row[n.first].coverage;
        const std::string flags = coverage_names(cov).empty() ? "" : " [" + coverage_text(cov) + "]";
        const std::string backend = backends_won[n.first].empty() ? "" : " (" + backends_won[n.first] + ")";
        line(indent + s.name, t, copies, "  " + s.kind + backend + flags);
        break;
      }
      case NodeKind::sum: children(depth, copies); break;
      case NodeKind::labeled:
        line(indent + m.tree.labels()[i], t, copies, "");
        children(depth + 1, copies);
        break;
      case NodeKind::scale:  // shown through its child: the copies multiply below
        children(depth, copies * n.param);
        break;
      case NodeKind::max:
      case NodeKind::fanout:  // not in a twin (a Fanout lowers to a max): shown as one
      case NodeKind::parallel:
        line(indent + (n.kind != NodeKind::parallel ? fmt::format("max over {} ranks", n.ranks())
                                               : fmt::format("parallel streams (overlap {})", n.param)),
             t, copies, "");
        children(depth + 1, copies);
        break;
    }
  };
  walk(0, 0, 1.0, walk);
}

nlohmann::json metrics_json(const Metrics& m) {
  return {{"time_ms", m.time_ms()}, {"flops", m.flops}, {"bytes", m.bytes}, {"energy_j", m.energy_j},
          {"coverage", coverage_json(m.coverage)}};
}

// The lower-bound view of one iteration (see `costdsl eval --bounds`).
struct BoundsView {
  std::vector<double> slot_bound_s;  // each leaf at the hardware roof
  double total_s = 0;                // the iteration as modelled
  double balanced_s = 0;             // every Max and Fanout folded with the mean: load imbalance removed
  double without_comm_s = 0;         // communication leaves removed
  double hardware_s = 0;             // every leaf at its bound
};

// balanced_s comes from evaluate_balanced: a Fanout's row holds only its slowest rank,
// so re-aggregating the row with the mean fold could not see imbalance between ranks.
BoundsView bounds_view(const Manifest& m, std::span<const Metrics> row, std::vector<double> slot_bounds,
                              double balanced_s) {
  BoundsView v;
  v.slot_bound_s = std::move(slot_bounds);
  std::vector<Metrics> scratch(m.tree.size());
  v.total_s = m.tree.aggregate(row, scratch).time_s;
  v.balanced_s = balanced_s;
  std::vector<Metrics> edited(row.begin(), row.end());
  for (std::size_t i = 0; i < edited.size(); ++i)
    if (kernels::family_of(m.slots[i].kind) == Family::communication) edited[i].time_s = 0;
  v.without_comm_s = m.tree.aggregate(edited, scratch).time_s;
  for (std::size_t i = 0; i < edited.size(); ++i) edited[i] = Metrics{v.slot_bound_s[i]};
  v.hardware_s = m.tree.aggregate(edited, scratch).time_s;
  return v;
}

nlohmann::json bounds_json(const BoundsView& v) {
  return {{"total_ms", v.total_s * 1e3},
          {"balanced_total_ms", v.balanced_s * 1e3},
          {"load_imbalance_share", v.total_s > 0 ? (v.total_s - v.balanced_s) / v.total_s : 0.0},
          {"without_communication_ms", v.without_comm_s * 1e3},
          {"hardware_bound_ms", v.hardware_s * 1e3},
          {"efficiency", v.total_s > 0 ? v.hardware_s / v.total_s : 0.0}};
}

void print_bounds(const Manifest& m, std::span<const Metrics> row, const BoundsView& v) {
  cli::out() << fmt::format("\n{:<44} {:>11} {:>11} {:>6}\n", "leaf (one copy)", "time", "bound", "eff.");
  for (std::size_t i = 0; i < row.size(); ++i) {
    const double t = row[i].time_s, b = v.slot_bound_s[i];
    cli::out() << fmt::format("{:<44} {:>8.4f} ms {:>8.4f} ms {:>5.0f}%\n", m.slots[i].name, t * 1e3, b * 1e3,
                             t > 0 ? 100 * b / t : 0.0);
  }
  auto pct = [&](double x) { return v.total_s > 0 ? 100 * x / v.total_s : 0.0; };
  cli::out() << fmt::format(
      "\ntotal                       {:>10.4f} ms\n"
      "balanced (Max → mean)       {:>10.4f} ms  load imbalance {:.1f}%\n"
      "without communication       {:>10.4f} ms  communication {:.1f}%\n"
      "hardware bound              {:>10.4f} ms  efficiency {:.1f}%\n",
      v.total_s * 1e3, v.balanced_s * 1e3, pct(v.total_s - v.balanced_s), v.without_comm_s * 1e3,
      pct(v.total_s - v.without_comm_s), v.hardware_s * 1e3, pct(v.hardware_s));
}

}  // namespace

void add_arch_commands(CLI::App& app) {
  // archs
  auto* list = app.add_subcommand("archs", "List the shipped archs and the parallel degrees each accepts");
  auto list_json = std::make_shared<bool>(false);
  list->add_flag("--json", *list_json, "print JSON");
  list->callback([list_json] {
    // The degrees each arch accepts, found by building it (the checks live in resolve_config).
    // hp: at the arch's widest tp, for the families with a KV-parallel grain (an MoE family's
    // at tp 1 and its widest ep: its hp groups fill the ep GPUs). An MoE family's TP experts:
    // the tp > 1 it accepts at ep 1 (one attention group, every expert split tp ways).
    enum class Vary { tp, ep, hp };
    auto accepted = [](const ShippedArch& a, Vary vary, std::uint32_t tp = 1, std::uint32_t ep = 0) {
      std::vector<std::uint32_t> ok;
      for (std::uint32_t d : {1u, 2u, 4u, 8u, 16u, 32u, 64u}) {
        try {
          ModelOptions o;
          o.arch = a.name;
          o.tp = tp;
          o.ep = ep;
          (vary == Vary::tp ? o.tp : vary == Vary::ep ? o.ep : o.hp) = d;
          check_model(o);
          ok.push_back(d);
        } catch (const ConfigError&) {
        }
      }
      return ok;
    };
    nlohmann::json out = nlohmann::json::array();
    for (const ShippedArch& a : shipped_archs()) {
      const bool moe = find_family(a.family).expert_parallel;
      const bool kv_parallel = find_family(a.family).kv_parallel;
      const std::vector<std::uint32_t> tps = accepted(a, Vary::tp);
      const std::vector<std::uint32_t> eps = moe ? accepted(a, Vary::ep) : std::vector<std::uint32_t>{1};
      const std::uint32_t widest = tps.empty() ? 1 : tps.back();
      const std::uint32_t hp_tp = moe ? 1 : widest, hp_ep = moe && !eps.empty() ? eps.back() : 0;
      const std::vector<std::uint32_t> hps =
          kv_parallel ? accepted(a, Vary::hp, hp_tp, hp_ep) : std::vector<std::uint32_t>{1};
      std::vector<std::uint32_t> tp_experts = moe ? accepted(a, Vary::tp, 1, 1) : std::vector<std::uint32_t>{};
      std::erase(tp_experts, 1u);  // tp 1 at ep 1 is the EP grain on one GPU
      if (*list_json) {
        out.push_back({{"name", a.name}, {"family", a.family}, {"config", a.config}, {"summary", a.summary},
                       {"tp", tps}, {"ep", eps}, {"hp", hps}, {"hp_at_tp", hp_tp}});
        if (moe) out.back()["tp_experts"] = tp_experts;
        if (moe && kv_parallel) out.back()["hp_at_ep"] = hp_ep;
      } else {
        const std::string moe_degrees =
            fmt::format(", ep ∈ {{{}}} (tp 1; dp = ep/tp)", fmt::join(eps, ",")) +
            (tp_experts.empty() ? std::string()
                                : fmt::format(", TP experts at tp ∈ {{{}}} (ep 1)", fmt::join(tp_experts, ","))) +
            (kv_parallel ? fmt::format(", hp ∈ {{{}}} (at tp 1, ep {}; dp = ep/hp)", fmt::join(hps, ","), hp_ep)
                         : std::string());
        cli::out() << fmt::format("{:<16} {:<12} tp ∈ {{{}}}{}  {}\n", a.name, a.family, fmt::join(tps, ","),
                                 moe ? moe_degrees : fmt::format(", hp ∈ {{{}}} (at tp {})", fmt::join(hps, ","), widest),
                                 a.summary);
      }
    }
    if (*list_json) cli::out() << out.dump(2) << '\n';
  });

  // describe / manifest
  for (const bool as_manifest : {false, true}) {
    struct State {
      ModelOptions model;
      std::string gpu = "h200";
      bool json = false;
    };
    auto st = std::make_shared<State>();
    auto* cmd = as_manifest ? app.add_subcommand("manifest", "Print the manifest JSON of an arch (slots, nodes, labels)")
                            : app.add_subcommand("describe", "Print the labeled tree: every leaf with its per-rank config");
    add_model_options(*cmd, st->model);
    cmd->add_option("--gpu", st->gpu, "GPU the leaves are bound to")->capture_default_str();
    if (!as_manifest) cmd->add_flag("--json", st->json, "print the same tree as the manifest JSON");
    cmd->callback([st, as_manifest] {
      const Timing timing = load_timing(st->gpu, TimingMode::roofline);
      const std::unique_ptr<Model> model = open_model(st->model, timing);
      const Manifest& m = model->manifest();
      cli::out() << (as_manifest || st->json ? to_json(m).dump(2) + "\n" : describe(m));
    });
  }

  // eval
  struct EvalState {
    ModelOptions model;
    BatchOptions batch;
    TimingOptions timing;
    bool json = false;
    bool bounds = false;
    std::string svg, html;
  };
  auto st = std::make_shared<EvalState>();
  auto* eval = app.add_subcommand("eval", "Evaluate one iteration: time per node and share of the total");
  add_model_options(*eval, st->model);
  st->timing.add(*eval);
  st->batch.add(*eval);
  eval->add_flag("--json", st->json, "print {total, slots, manifest} as JSON");
  eval->add_option("--svg", st->svg, "write the tree as an SVG icicle chart (width ∝ time) to FILE");
  eval->add_option("--html", st->html,
                   "write a self-contained HTML report to FILE: the icicle and the slots as a sortable table");
  eval->add_flag("--bounds", st->bounds,
                 "add the lower-bound view: each leaf's hardware bound and efficiency; the balanced total "
                 "(Max and rank fan-outs folded with the mean), the total without communication, the hardware bound");
  eval->callback([st] {
    st->batch.parse();
    const Timing timing = st->timing.make();
    const std::unique_ptr<Model> model = open_model(st->model, timing);
    const Manifest& m = model->manifest();
    const ops::AttentionBatch it = st->batch.iteration();
    std::vector<Metrics> row(m.slots.size());
    const Metrics total = model->evaluate(it, row);
    std::vector<double> slot_bounds(m.slots.size());
    model->evaluate_bounds(it, slot_bounds);
    const double balanced_s = st->bounds ? model->evaluate_balanced(it).time_s : 0.0;
    std::vector<Metrics> nodes(m.tree.size());
    m.tree.aggregate(row, nodes);
    std::vector<std::string> won(row.size()), measured_by(row.size());
    for (std::size_t i = 0; i < row.size(); ++i) {
      if (row[i].backend == no_backend) continue;
      won[i] = m.slots[i].backends.at(row[i].backend);
      if (row[i].backend < m.slots[i].provenance.size()) measured_by[i] = m.slots[i].provenance[row[i].backend];
    }
    // The --json object; --html embeds the same one.
    const auto eval_json = [&] {
      nlohmann::json slots = nlohmann::json::array();
      for (std::size_t i = 0; i < row.size(); ++i) {
        nlohmann::json s = metrics_json(row[i]);
        s["name"] = m.slots[i].name;
        s["kind"] = m.slots[i].kind;
        s["backend"] = won[i].empty() ? nlohmann::json(nullptr) : nlohmann::json(won[i]);
        s["measured_by"] = measured_by[i].empty() ? nlohmann::json(nullptr) : nlohmann::json(measured_by[i]);
        slots.push_back(std::move(s));
      }
      nlohmann::json out{{"total", metrics_json(total)}, {"slots", slots}, {"manifest", to_json(m)}};
      if (st->bounds) {
        const BoundsView v = bounds_view(m, row, slot_bounds, balanced_s);
        out["bounds"] = bounds_json(v);
        for (std::size_t i = 0; i < row.size(); ++i) out["slots"][i]["lower_bound_ms"] = slot_bounds[i] * 1e3;
      }
      return out;
    };
    if (!st->svg.empty() || !st->html.empty()) {
      IcicleOptions o;
      o.subtitle = fmt::format("{} on {}: {} prefill chunk(s), {}", m.tree.labels()[0], timing.gpu().name,
                               it.prefill.size(), st->batch.decodes_text());
      if (st->bounds) o.slot_bounds_s = slot_bounds;
      const std::string icicle = icicle_svg(m, nodes, row, o);
      if (!st->svg.empty()) write_text_file(st->svg, icicle, "--svg");
      if (!st->html.empty())
        write_text_file(st->html,
                        eval_html(fmt::format("costdsl eval: {} on {}",
                                              st->model.arch.empty() ? st->model.model_config : st->model.arch,
                                              timing.gpu().name),
                                  o.subtitle, icicle, eval_json()),
                        "--html");
    }
    if (st->json) {
      cli::out() << eval_json().dump(2) << '\n';
      return;
    }
    // The text names the winning backend and who measured its table: "gemm (sglang: SGLang 0.5.14)".
    for (std::size_t i = 0; i < row.size(); ++i)
      if (!measured_by[i].empty()) won[i] += ": " + measured_by[i];
    print_tree(m, nodes, row, won);
    cli::out() << fmt::format(
        "\ntotal {:.3f} ms on {} ({} prefill chunk(s), {}; {} new tokens)  [{}]\n"
        "work  {}, {}, {:.3g} J\n",
        total.time_ms(), timing.gpu().name, it.prefill.size(), st->batch.decodes_text(),
        ops::collapse(it).append_tokens, coverage_text(total), si(total.flops, "FLOP"),
        si(total.bytes, "B"), total.energy_j);
    if (st->bounds) print_bounds(m, row, bounds_view(m, row, slot_bounds, balanced_s));
  });
}

}  // namespace costdsl::cli
