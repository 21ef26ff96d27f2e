// helix_pareto: long-context decode with and without KV parallelism (hp), the way the
// Helix paper (Bhatia et al., arXiv 2507.07120) compares them: every deployment of a
// dense model on N GPUs at a fixed context, as throughput per GPU against per-user speed.
//
//   helix_pareto --model llama3_405b --gpu gb200 --gpus 64 --context 1048576
//
// A deployment is a worker of tp × hp GPUs (hp 1: tp alone, up to the KV heads, or past
// them with KV heads copied: --kv-replicate) replicated over the N GPUs, running a decode
// batch of b requests, every one at `context` tokens of KV. b runs over powers of two up
// to what one GPU's HBM holds (weights, 10% reserve, KV). Per point: token-to-token
// latency (TTL) = one decode iteration; tokens/s/GPU = b / TTL / (tp × hp); concurrent
// users = b × replicas. Prints the Pareto front (--all: every point) and the two
// comparisons the paper makes.
#include <algorithm>
#include <cstdint>
#include <iostream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "costdsl/archs/llama3.hpp"
#include "costdsl/data_dir.hpp"
#include "costdsl/evaluate.hpp"
#include "costdsl/load_hf_config.hpp"
#include "costdsl/load_timing.hpp"
#include "costdsl/serve/kv_budget.hpp"

namespace {

using namespace costdsl;
using archs::Llama3Config;

struct Point {
  std::uint32_t tp = 1, hp = 1, batch = 0, replicas = 0;
  bool replicated = false;
  double ttl_s = 0;
  std::uint32_t gpus() const { return tp * hp; }
  std::uint64_t users() const { return std::uint64_t{batch} * replicas; }
  double tokens_per_s_gpu() const { return batch / ttl_s / gpus(); }
  double tokens_per_s_user() const { return 1 / ttl_s; }
  std::string name() const {
    return hp > 1 ? fmt::format("tp{} hp{}", tp, hp) : fmt::format("tp{}{}", tp, replicated ? " (KV copied)" : "");
  }
};

// Every batch of one worker shape that fits: the arch's own checks decide the shape.
template <class Arch>
void sweep(const Llama3Config& c, const Timing& t, std::uint32_t gpus, std::uint32_t context, std::vector<Point>& out) {
  const Arch arch(c);
  const serve::KvBudget kv = serve::kv_budget(arch, t.gpu(), serve::ServerConfig{});
  const std::uint64_t fit = kv.tokens / context;
  const auto tree = arch.build(t);
  const std::vector<ops::PrefillChunk> none;
  std::vector<std::uint32_t> decode;
  for (std::uint64_t b = 1; b <= std::min<std::uint64_t>(fit, 4096); b *= 2) {
    decode.assign(b, context);
    const double ttl = evaluate(tree, arch.inputs({none, decode})).time_s;
    out.push_back({c.tp, c.hp, static_cast<std::uint32_t>(b), gpus / (c.tp * c.hp), c.kv_replicate, ttl});
  }
}

bool dominated(const Point& p, const std::vector<Point>& all) {
  return std::any_of(all.begin(), all.end(), [&](const Point& q) {
    return q.tokens_per_s_user() >= p.tokens_per_s_user() && q.tokens_per_s_gpu() >= p.tokens_per_s_gpu() &&
           (q.tokens_per_s_user() > p.tokens_per_s_user() || q.tokens_per_s_gpu() > p.tokens_per_s_gpu());
  });
}

}  // namespace

int main(int argc, char** argv) {
  std::string model = "llama3_405b", gpu = "gb200", timing = "auto";
  std::uint32_t gpus = 64, context = 1u << 20;
  bool all = false;
  CLI::App app{"helix_pareto: long-context decode deployments with and without KV parallelism", "helix_pareto"};
  app.add_option("--model", model, "a shipped Llama arch")
      ->check(CLI::IsMember({"llama3_8b", "llama3_70b", "llama3_405b"}))
      ->capture_default_str();
  app.add_option("--gpu", gpu, "GPU name or alias")->capture_default_str();
  app.add_option("--gpus", gpus, "GPUs of the deployment")->check(CLI::Range(1, 4096))->capture_default_str();
  app.add_option("--context", context, "KV tokens of every request")->check(CLI::Range(1, 1 << 30))->capture_default_str();
  app.add_option("--timing", timing, "auto | profile | roofline")
      ->check(CLI::IsMember({"auto", "profile", "roofline"}))
      ->capture_default_str();
  app.add_flag("--all", all, "list every deployment swept, not only the Pareto front");
  try {
    app.parse(argc, argv);
    const Timing t = load_timing(gpu, timing == "roofline"  ? TimingMode::roofline
                                      : timing == "profile" ? TimingMode::profile
                                                            : TimingMode::automatic);
    const HfConfig hf = load_hf_config(default_data_dir() / "models" / (model + ".json"));
    std::vector<Point> points;
    std::vector<std::string> skipped;
    std::size_t shapes = 0;
    for (std::uint32_t tp = 1; tp <= gpus; tp *= 2)
      for (std::uint32_t hp = 1; std::uint64_t{tp} * hp <= gpus; hp *= 2) {
        Llama3Config c = Llama3Config::from_hf(hf, {.tp = tp, .hp = hp});
        c.kv_replicate = hp == 1 && tp > c.num_kv_heads;  // the baseline past the KV heads
        if (hp > 1 && tp > c.num_kv_heads) continue;       // hp is the other way past them
        try {
          if (hp == 1) {
            sweep<archs::Llama3<Llama3Config>>(c, t, gpus, context, points);
          } else {
            sweep<archs::Llama3<Llama3Config, archs::AttnGrain::hptp>>(c, t, gpus, context, points);
          }
          ++shapes;
        } catch (const Error& e) {  // a shape the model rejects, or weights that do not fit
          skipped.push_back(fmt::format("tp{} hp{}: {}", tp, hp, e.what()));
        }
      }
    if (points.empty()) throw InputError("no deployment fits: " + (skipped.empty() ? std::string() : skipped[0]));

    fmt::print("{} on {} × {}, {} tokens of KV per request, timing {}\n\n", model, gpus, t.gpu().name, context, timing);
    fmt::print("| worker | replicas | batch | users | TTL ms | tokens/s/user | tokens/s/GPU |\n|---|---|---|---|---|---|---|\n");
    std::vector<Point> front;
    for (const Point& p : points)
      if (all || !dominated(p, points)) front.push_back(p);
    std::sort(front.begin(), front.end(),
              [](const Point& a, const Point& b) { return a.tokens_per_s_user() > b.tokens_per_s_user(); });
    for (const Point& p : front)
      fmt::print("| {} | {} | {} | {} | {:.2f} | {:.1f} | {:.3f} |\n", p.name(), p.replicas, p.batch, p.users(),
                 p.ttl_s * 1e3, p.tokens_per_s_user(), p.tokens_per_s_gpu());

    // The paper's two comparisons, hp against the best deployment without it.
    const auto best_ttl = [&](bool with_hp, std::uint64_t users) {
      double best = 0;
      for (const Point& p : points)
        if ((p.hp > 1) == with_hp && p.users() >= users && (best == 0 || p.ttl_s < best)) best = p.ttl_s;
      return best;
    };
    const auto most_users = [&](bool with_hp, double ttl) {
      std::uint64_t most = 0;
      for (const Point& p : points)
        if ((p.hp > 1) == with_hp && p.ttl_s <= ttl) most = std::max(most, p.users());
      return most;
    };
    double latency_gain = 0, users_gain = 0;
    std::uint64_t latency_at = 0;
    double users_at = 0;
    for (const Point& p : points) {
      if (p.hp > 1) continue;
      const double hp_ttl = best_ttl(true, p.users()), base_ttl = best_ttl(false, p.users());
      if (hp_ttl > 0 && base_ttl / hp_ttl > latency_gain) {
        latency_gain = base_ttl / hp_ttl;
        latency_at = p.users();
      }
      const std::uint64_t hp_users = most_users(true, p.ttl_s), base_users = most_users(false, p.ttl_s);
      if (base_users > 0 && double(hp_users) / base_users > users_gain) {
        users_gain = double(hp_users) / base_users;
        users_at = p.ttl_s;
      }
    }
    fmt::print("\nlowest TTL at the same concurrent users: up to {:.2f}x lower with hp (at {} users)\n", latency_gain,
               latency_at);
    fmt::print("most concurrent users at the same TTL: up to {:.2f}x more with hp (at TTL {:.2f} ms)\n", users_gain,
               users_at * 1e3);
    fmt::print("{} worker shapes swept ({} points), {} rejected\n", shapes, points.size(), skipped.size());
    for (const std::string& s : skipped) fmt::print("  rejected {}\n", s);
    return 0;
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : 2;
  } catch (const Error& e) {
    std::cerr << "helix_pareto: error: " << e.what() << '\n';
    return 2;
  }
}
