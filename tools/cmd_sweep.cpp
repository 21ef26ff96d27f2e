// costdsl sweep: iteration time and throughput against decode batch size, for one
// arch on one or more GPUs and TP degrees; CSV, SVG (sweep_svg.hpp) and JSON out.

#include <array>
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "cli_common.hpp"
#include "commands.hpp"
#include "output.hpp"
#include "costdsl/lower.hpp"
#include "sweep_svg.hpp"

namespace costdsl::cli {

namespace {

struct SweepRow {
  std::string gpu;  // canonical name
  std::uint32_t tp = 1;
  std::uint32_t hp = 1;
  std::uint32_t batch = 0;
  double time_s = 0;
  double tokens_per_s = 0;
  std::array<double, n_families> family_s{};
  Coverage coverage = Coverage::none;
};

// Progress on stderr, only for a terminal: a bar redrawn in place.
class ProgressBar {
 public:
  ProgressBar(std::size_t total, bool enabled) : total_(total), enabled_(enabled) {}
  void step(const std::string& what) {
    ++done_;
    if (!enabled_) return;
    constexpr int width = 30;
    const int filled = static_cast<int>(width * done_ / std::max<std::size_t>(total_, 1));
    cli::err() << fmt::format("\r[{}{}] {}/{} {:<40}", std::string(static_cast<std::size_t>(filled), '#'),
                             std::string(static_cast<std::size_t>(width - filled), ' '), done_, total_, what)
              << std::flush;
  }
  ~ProgressBar() {
    if (enabled_ && done_ > 0) cli::err() << "\r" << std::string(90, ' ') << "\r" << std::flush;
  }
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

 private:
  std::size_t total_, done_ = 0;
  bool enabled_;
};

std::string sweep_csv(const std::string& arch, std::uint32_t kv, std::uint32_t prefill_len,
                             const std::vector<SweepRow>& rows) {
  std::string out = "arch,gpu,tp,hp,batch,kv,prefill_len,time_ms,tokens_per_s";
  for (const Family f : all_families) out += fmt::format(",{}_ms", name(f));
  out += '\n';
  auto field = [](const std::string& s) {  // RFC 4180 quoting where needed
    if (s.find_first_of(",\"\n") == std::string::npos) return s;
    std::string q = "\"";
    for (const char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
    return q + "\"";
  };
  for (const auto& r : rows) {
    out += fmt::format("{},{},{},{},{},{},{},{:.6f},{:.3f}", field(arch), field(r.gpu), r.tp, r.hp, r.batch, kv,
                       prefill_len,
                       r.time_s * 1e3, r.tokens_per_s);
    for (const double t : r.family_s) out += fmt::format(",{:.6f}", t * 1e3);
    out += '\n';
  }
  return out;
}

}  // namespace

void add_sweep_command(CLI::App& app) {
  struct State {
    ModelOptions model;
    std::vector<std::string> gpus;
    std::vector<std::uint32_t> tps{1};
    std::vector<std::uint32_t> hps{1};
    std::vector<std::uint32_t> batches{1, 2, 4, 8, 16, 32, 64, 128, 256};
    std::uint32_t kv = 2048;
    std::uint32_t prefill_len = 0;
    std::string timing = "auto";
    std::string profile_dir;
    std::string csv, svg_path;
    bool json = false;
  };
  auto st = std::make_shared<State>();
  auto* cmd = app.add_subcommand(
      "sweep", "Iteration time and tokens/s against decode batch size, per GPU and TP degree (CSV / SVG / JSON)");
  add_model_source_options(*cmd, st->model);
  cmd->add_option("--gpu", st->gpus, "GPU name or alias (see `costdsl gpus`); repeatable")->required();
  cmd->add_option("--tp", st->tps, "tensor-parallel degrees, e.g. 1,2,4,8")
      ->delimiter(',')
      ->check(positive)
      ->capture_default_str();
  cmd->add_option("--hp", st->hps, "KV-parallel degrees (dense archs, decode only), e.g. 1,2,4: attention on hp × tp GPUs")
      ->delimiter(',')
      ->check(positive)
      ->capture_default_str();
  cmd->add_flag("--kv-replicate", st->model.kv_replicate,
                "dense archs: allow tp above the KV heads by copying each KV head to tp / num_kv_heads GPUs");
  cmd->add_flag("--hop-b", st->model.hop_b,
                "hp > 1: overlap each batch slice's HP all-to-all with the next slice's attention (Helix HOP-B)");
  cmd->add_option("--ep", st->model.ep, "expert-parallel degree (MoE archs)")->check(positive);
  cmd->add_option("--dp", st->model.dp, "data-parallel attention groups (MoE archs)")->check(positive);
  cmd->add_option("--decode-batch", st->batches, "decode batch sizes, e.g. 1,2,4,...,256")
      ->delimiter(',')
      ->check(positive)
      ->capture_default_str();
  cmd->add_option("--kv", st->kv, "KV length of every decode request")->check(positive)->capture_default_str();
  cmd->add_option("--prefill-len", st->prefill_len, "add one prefill chunk 0:N to every iteration (0: none)")
      ->check(non_negative)
      ->capture_default_str();
  cmd->add_option("--timing", st->timing, "auto (measured where covered, else roofline) | profile | roofline")
      ->check(CLI::IsMember({"auto", "profile", "roofline"}))
      ->capture_default_str();
  cmd->add_option("--profile-dir", st->profile_dir,
                  "read measured tables from DIR/<gpu>/<kind>.csv instead of the shipped data/profiles")
      ->check(CLI::ExistingDirectory);
  cmd->add_option("--csv", st->csv, "write the points as CSV to FILE");
  cmd->add_option("--svg", st->svg_path, "write the plot as SVG to FILE");
  cmd->add_flag("--json", st->json, "print the points as JSON");

  cmd->callback([st] {
    if (st->batches.empty()) throw InputError("--decode-batch needs at least one batch size");
    if (st->tps.empty()) throw InputError("--tp needs at least one degree");
    if (st->hps.empty()) throw InputError("--hp needs at least one degree");
    for (const std::uint32_t b : st->batches)
      if (b > 1u << 20) throw InputError("--decode-batch " + std::to_string(b) + ": more than 2^20 decode requests");
    std::optional<std::filesystem::path> dir;
    if (!st->profile_dir.empty()) dir = st->profile_dir;
    const TimingMode mode = parse_timing_mode(st->timing);
    const std::string arch_name = st->model.arch.empty() ? st->model.model_config : st->model.arch;

    const std::size_t n_points = st->gpus.size() * st->tps.size() * st->hps.size() * st->batches.size();
    ProgressBar progress(n_points, n_points > 20 && err_is_terminal());

    std::vector<SweepRow> rows;
    std::vector<SweepSeries> series;
    std::vector<ops::PrefillChunk> chunks;
    if (st->prefill_len > 0) chunks.push_back({0, st->prefill_len});
    for (const std::string& gpu : st->gpus) {
      const Timing timing = load_timing(gpu, mode, dir);
      for (const std::uint32_t tp : st->tps)
        for (const std::uint32_t hp : st->hps) {
          ModelOptions opts = st->model;
          opts.tp = tp;
          opts.hp = hp;
          SweepSeries s;
          s.name = hp > 1 ? fmt::format("{} tp={} hp={}", timing.gpu().name, tp, hp)
                          : fmt::format("{} tp={}", timing.gpu().name, tp);
          try {
            const std::unique_ptr<Model> model = open_model(opts, timing);
            const Manifest& m = model->manifest();
            std::vector<Metrics> row(m.slots.size());
            std::vector<Metrics> nodes(m.tree.size());
            std::vector<std::uint32_t> decode_kv;
            for (const std::uint32_t b : st->batches) {
              decode_kv.assign(b, st->kv);
              const Metrics total = model->evaluate(ops::AttentionBatch{chunks, decode_kv}, row);
              m.tree.aggregate(row, nodes);
              SweepRow r;
              r.gpu = timing.gpu().name;
              r.tp = tp;
              r.hp = hp;
              r.batch = b;
              r.time_s = total.time_s;
              r.tokens_per_s = total.time_s > 0 ? (b + st->prefill_len) / total.time_s : 0.0;
              r.family_s = family_times(m, nodes);
              r.coverage = total.coverage;
              rows.push_back(r);
              s.points.push_back({static_cast<double>(b), r.time_s, r.tokens_per_s, r.family_s});
              progress.step(fmt::format("{} batch {}", s.name, b));
            }
          } catch (const ConfigError& e) {
            throw ConfigError(hp > 1 ? fmt::format("--tp {} --hp {} on {}: {}", tp, hp, arch_name, e.what())
                                     : fmt::format("--tp {} on {}: {}", tp, arch_name, e.what()));
          }
          series.push_back(std::move(s));
        }
    }

    if (!st->csv.empty()) write_text_file(st->csv, sweep_csv(arch_name, st->kv, st->prefill_len, rows));
    if (!st->svg_path.empty()) {
      SweepPlotOptions o;
      o.title = fmt::format("{}: decode batch sweep", arch_name);
      o.subtitle = fmt::format("{} decodes at KV {}{}; timing {}", "B", st->kv,
                               st->prefill_len ? fmt::format(" + one prefill chunk of {} tokens", st->prefill_len) : "",
                               st->timing);
      write_text_file(st->svg_path, sweep_svg(series, o));
    }
    if (st->json) {
      nlohmann::json points = nlohmann::json::array();
      for (const auto& r : rows) {
        nlohmann::json fam = nlohmann::json::object();
        for (const Family f : all_families) fam[std::string(name(f)) + "_ms"] = r.family_s[family_index(f)] * 1e3;
        points.push_back({{"gpu", r.gpu},
                          {"tp", r.tp},
                          {"hp", r.hp},
                          {"batch", r.batch},
                          {"time_ms", r.time_s * 1e3},
                          {"tokens_per_s", r.tokens_per_s},
                          {"families", fam},
                          {"coverage", coverage_json(r.coverage)}});
      }
      cli::out() << nlohmann::json{{"arch", arch_name},
                                  {"kv", st->kv},
                                  {"prefill_len", st->prefill_len},
                                  {"timing", st->timing},
                                  {"points", points}}
                       .dump(2)
                << '\n';
      return;
    }
    std::string header = fmt::format("{:<16} {:>4} {:>4} {:>6} {:>12} {:>12}", "gpu", "tp", "hp", "batch", "time ms",
                                     "tokens/s");
    for (const Family f : all_families) header += fmt::format(" {:>15}", fmt::format("{} %", name(f)));
    cli::out() << header << '\n';
    for (const auto& r : rows) {
      std::string line = fmt::format("{:<16} {:>4} {:>4} {:>6} {:>12.4f} {:>12.1f}", r.gpu, r.tp, r.hp, r.batch,
                                     r.time_s * 1e3, r.tokens_per_s);
      for (const double t : r.family_s) line += fmt::format(" {:>15.1f}", r.time_s > 0 ? 100 * t / r.time_s : 0.0);
      const auto flags = coverage_names(r.coverage);
      if (!flags.empty()) line += "  [" + coverage_text(r.coverage) + "]";
      cli::out() << line << '\n';
    }
  });
}

}  // namespace costdsl::cli
