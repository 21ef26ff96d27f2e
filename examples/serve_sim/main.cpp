// serve_sim: drive a static costdsl arch with a request stream and report serving latency.
// A thin main over costdsl/serve (the engine: continuous batching, token budget, chunked
// prefill, KV capacity from the arch and the GPU memory).
//
//   serve_sim --requests 1000 --rate 150 --seed 1 --max-batch-tokens 8192 --gpu h200
//   serve_sim --model llama3_70b --trace requests.csv --json
#include <iostream>
#include <string>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "costdsl/archs/llama3.hpp"
#include "costdsl/load_timing.hpp"
#include "costdsl/serve/arch_model.hpp"
#include "costdsl/serve/kv_budget.hpp"
#include "costdsl/serve/simulate.hpp"
#include "costdsl/serve/synthetic_workload.hpp"
#include "costdsl/serve/trace.hpp"
#include "costdsl/timing.hpp"

namespace {

using namespace costdsl;
using namespace costdsl::archs;
namespace serve = costdsl::serve;

struct Options {
  std::string model = "llama3_8b";
  std::string gpu = "h200";
  std::string timing = "auto";
  std::string trace;
  std::string dist = "lognormal";
  serve::SyntheticWorkload work;
  serve::ServerConfig server;
  std::uint32_t hp = 1;
  bool json = false;
};

nlohmann::json percentiles_json(const serve::Percentiles& p) {
  return {{"p50", p.p50}, {"p90", p.p90}, {"p99", p.p99}, {"mean", p.mean}};
}

nlohmann::json to_json(const Options& o, const std::string& arch_label, const serve::KvBudget& kv,
                       const serve::SimResult& r) {
  return {
      {"model", o.model},
      {"arch", arch_label},
      {"gpu", o.gpu},
      {"workload", o.trace.empty() ? nlohmann::json{{"requests", o.work.requests},
                                                    {"rate", o.work.rate},
                                                    {"seed", o.work.seed},
                                                    {"dist", o.dist},
                                                    {"input_median", o.work.input_median},
                                                    {"output_median", o.work.output_median}}
                                   : nlohmann::json{{"trace", o.trace}}},
      {"server",
       {{"max_batch_tokens", o.server.max_batch_tokens},
        {"max_seqs", o.server.max_seqs},
        {"kv_block", o.server.kv_block},
        {"reserve_fraction", o.server.reserve_fraction}}},
      {"kv",
       {{"capacity_tokens", kv.tokens},
        {"bytes_per_token_per_gpu", kv.bytes_per_token},
        {"weight_bytes_per_gpu", kv.weight_bytes},
        {"hbm_bytes", kv.hbm_bytes},
        {"reserved_peak", r.kv_reserved_peak},
        {"used_peak", r.kv_used_peak}}},
      {"requests", r.requests},
      {"completed", r.completed},
      {"rejected", r.rejected},
      {"iterations", r.iterations},
      {"sim_time_s", r.sim_time_s},
      {"busy_s", r.busy_s},
      {"prefill_tokens", r.prefill_tokens},
      {"output_tokens", r.output_tokens},
      {"throughput",
       {{"output_tokens_per_s", r.output_tokens_per_s()},
        {"total_tokens_per_s", r.total_tokens_per_s()},
        {"requests_per_s", r.requests_per_s()}}},
      {"ttft_s", percentiles_json(r.ttft_s)},
      {"tpot_s", percentiles_json(r.tpot_s)},
      {"e2e_s", percentiles_json(r.e2e_s)},
      {"queue_s", percentiles_json(r.queue_s)},
      {"batch_peak", r.batch_peak},
      {"mean_batch_tokens", r.mean_batch_tokens},
      {"ttft_le_e2e", r.ttft_le_e2e},
      {"simulator",
       {{"wall_s", r.wall_s},
        {"sim_s_per_wall_s", r.sim_s_per_wall_s()},
        {"ns_per_iteration", r.ns_per_iteration()}}},
  };
}

void print_text(const Options& o, const std::string& arch_label, const serve::KvBudget& kv,
                const serve::SimResult& r) {
  auto ms = [](const serve::Percentiles& p) {
    return fmt::format("p50 {:9.2f}  p90 {:9.2f}  p99 {:9.2f}  mean {:9.2f} ms", p.p50 * 1e3, p.p90 * 1e3,
                       p.p99 * 1e3, p.mean * 1e3);
  };
  fmt::print("{} on {} (timing {})\n", arch_label, o.gpu, o.timing);
  fmt::print("workload    {}\n", o.trace.empty() ? fmt::format("{} requests, Poisson {} req/s, {} lengths (median "
                                                               "in {} / out {}), seed {}",
                                                               o.work.requests, o.work.rate, o.dist,
                                                               o.work.input_median, o.work.output_median, o.work.seed)
                                                   : "trace " + o.trace);
  fmt::print("server      {} tokens/iteration, {} seqs max, KV {} tokens ({:.1f} GB free of {:.1f} GB: weights "
             "{:.1f} GB, reserve {:.0f}%; {:.0f} KiB/token)\n",
             o.server.max_batch_tokens, o.server.max_seqs, kv.tokens, kv.tokens * kv.bytes_per_token / 1e9,
             kv.hbm_bytes / 1e9, kv.weight_bytes / 1e9, o.server.reserve_fraction * 100, kv.bytes_per_token / 1024);
  fmt::print("completed   {} / {} ({} rejected: larger than the KV cache)\n", r.completed, r.requests, r.rejected);
  fmt::print("sim time    {:.3f} s ({:.3f} s busy), {} iterations, {:.0f} tokens/iteration mean, {} running peak\n",
             r.sim_time_s, r.busy_s, r.iterations, r.mean_batch_tokens, r.batch_peak);
  fmt::print("throughput  {:.0f} output tokens/s, {:.0f} total tokens/s, {:.2f} requests/s\n",
             r.output_tokens_per_s(), r.total_tokens_per_s(), r.requests_per_s());
  fmt::print("TTFT        {}\n", ms(r.ttft_s));
  fmt::print("TPOT        {}\n", ms(r.tpot_s));
  fmt::print("e2e         {}\n", ms(r.e2e_s));
  fmt::print("queueing    {}\n", ms(r.queue_s));
  fmt::print("KV peak     {:.1f}% reserved, {:.1f}% written\n", r.kv_reserved_peak * 100, r.kv_used_peak * 100);
  fmt::print("simulator   {:.3f} s wall, {:.0f} simulated s per wall s, {:.0f} ns per iteration\n", r.wall_s,
             r.sim_s_per_wall_s(), r.ns_per_iteration());
}

// One static instantiation per shipped (model, tp): the tree is a type, so each is compiled.
template <class Arch>
int run(const Options& o, const std::string& label) {
  const Timing timing = load_timing(o.gpu, parse_timing_mode(o.timing));
  serve::ArchModel<Arch> model(Arch{}, timing);
  const serve::KvBudget kv = serve::kv_budget(model, timing.gpu(), o.server);
  const auto reqs = o.trace.empty() ? o.work.generate() : serve::load_trace(o.trace);
  const serve::SimResult r = serve::simulate(model, reqs, o.server, kv.tokens);
  if (o.json) {
    std::cout << to_json(o, label, kv, r).dump(2) << '\n';
  } else {
    print_text(o, label, kv, r);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  // CLI::PositiveNumber's message prints DBL_MAX in full; say it plainly instead.
  const CLI::Validator positive(
      [](std::string& s) -> std::string {
        double v = 0;
        return CLI::detail::lexical_cast(s, v) && v > 0 ? std::string{} : "must be a positive number, got " + s;
      },
      "POSITIVE", "positive");
  Options o;
  CLI::App app{"serve_sim: iteration-level LLM serving simulator timed by costdsl cost trees", "serve_sim"};
  app.add_option("--model", o.model, "llama3_8b (tp 1) | llama3_70b (tp 8)")
      ->check(CLI::IsMember({"llama3_8b", "llama3_70b"}))
      ->capture_default_str();
  app.add_option("--gpu", o.gpu, "GPU name or alias (see `costdsl gpus`)")->capture_default_str();
  app.add_option("--timing", o.timing, "auto | profile | roofline")
      ->check(CLI::IsMember({"auto", "profile", "roofline"}))
      ->capture_default_str();
  auto* trace = app.add_option("--trace", o.trace, "CSV trace: arrival_s,input_tokens,output_tokens")
                    ->check(CLI::ExistingFile);
  app.add_option("--requests", o.work.requests, "synthetic: number of requests")
      ->check(CLI::Range(1, 100'000'000))
      ->capture_default_str()
      ->excludes(trace);
  app.add_option("--rate", o.work.rate, "synthetic: Poisson arrival rate (requests/s)")
      ->check(positive)
      ->capture_default_str()
      ->excludes(trace);
  app.add_option("--seed", o.work.seed, "synthetic: RNG seed")->capture_default_str()->excludes(trace);
  app.add_option("--dist", o.dist, "synthetic: length distribution, lognormal | uniform")
      ->check(CLI::IsMember({"lognormal", "uniform"}))
      ->capture_default_str()
      ->excludes(trace);
  app.add_option("--input-median", o.work.input_median, "synthetic: median prompt length")
      ->check(CLI::Range(1.0, 1e6))
      ->capture_default_str()
      ->excludes(trace);
  app.add_option("--output-median", o.work.output_median, "synthetic: median output length")
      ->check(CLI::Range(1.0, 1e6))
      ->capture_default_str()
      ->excludes(trace);
  app.add_option("--sigma", o.work.sigma, "synthetic: lognormal shape")
      ->check(CLI::Range(0.0, 5.0))
      ->capture_default_str()
      ->excludes(trace);
  app.add_option("--max-len", o.work.max_len, "synthetic: clamp of each length")
      ->check(CLI::Range(1, 1'000'000))
      ->capture_default_str()
      ->excludes(trace);
  app.add_option("--max-batch-tokens", o.server.max_batch_tokens, "token budget per iteration")
      ->check(CLI::Range(1, 1'000'000))
      ->capture_default_str();
  app.add_option("--max-seqs", o.server.max_seqs, "running requests at most")
      ->check(CLI::Range(1, 1'000'000))
      ->capture_default_str();
  app.add_option("--kv-block", o.server.kv_block, "KV page size in tokens")
      ->check(CLI::Range(1, 4096))
      ->capture_default_str();
  app.add_option("--reserve", o.server.reserve_fraction, "fraction of HBM kept out of the KV cache")
      ->check(CLI::Range(0.0, 0.99))
      ->capture_default_str();
  app.add_option("--hp", o.hp, "KV-parallel degree: 1 (an aggregated worker prefills, and hp is decode-only)")
      ->check(CLI::Range(1, 1024))
      ->capture_default_str();
  app.add_flag("--json", o.json, "print the report as JSON");
  try {
    app.parse(argc, argv);
    // Every framework that ships KV-parallel attention (vLLM's decode context parallelism,
    // TensorRT-LLM's helix) runs it on decode workers fed by a prefill server.
    if (o.hp != 1)
      throw InputError("--hp " + std::to_string(o.hp) +
                       ": serve_sim runs one aggregated worker, which prefills every prompt in its own iterations, and "
                       "KV-parallel attention is decode-only; search KV-parallel decode workers with `costdsl plan "
                       "--mode disagg --hp " + std::to_string(o.hp) + "`");
    o.work.dist = o.dist == "uniform" ? serve::LengthDist::uniform : serve::LengthDist::lognormal;
    if (o.model == "llama3_70b") return run<Llama3<Fixed<deploy(llama3_70b, {.tp = 8})>>>(o, "Llama-3-70B tp 8");
    return run<Llama3<Fixed<deploy(llama3_8b)>>>(o, "Llama-3-8B tp 1");
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : 2;
  } catch (const costdsl::Error& e) {
    std::cerr << "serve_sim: error: " << e.what() << '\n';
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "serve_sim: internal error: " << e.what() << '\n';
    return 1;
  }
}
