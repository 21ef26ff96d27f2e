#pragma once
// simulate: one worker serving a known request stream (arrivals in order) to the end.
//
//   serve::ArchModel model(archs::Llama3<Fixed<archs::llama3_8b>>{}, timing);
//   const auto kv = serve::kv_budget(model, timing.gpu(), cfg);
//   const serve::SimResult r = serve::simulate(model, requests, cfg, kv.tokens);
//
// A workload that cannot run at all is an InputError, not a report of zeros: every
// request larger than the KV cache, or a stream whose requests all finish at time 0.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "costdsl/error.hpp"
#include "costdsl/serve/arch_model.hpp"
#include "costdsl/serve/iteration_model.hpp"
#include "costdsl/serve/request.hpp"
#include "costdsl/serve/server_config.hpp"
#include "costdsl/serve/sim_result.hpp"
#include "costdsl/serve/worker.hpp"
#include "costdsl/timing.hpp"

namespace costdsl::serve {

template <IterationModel Model>
SimResult simulate(Model& model, std::span<const Request> reqs, const ServerConfig& cfg,
                   std::uint64_t kv_capacity_tokens) {
  if (reqs.size() > 0xffffffffull) throw InputError("simulate: more than 2^32 - 1 requests");
  for (std::size_t i = 1; i < reqs.size(); ++i)
    if (reqs[i].arrival_s < reqs[i - 1].arrival_s)
      throw InputError("simulate: request " + std::to_string(i) + " arrives before request " + std::to_string(i - 1) +
                       " (arrivals must be in order)");
  Worker<Model> worker(model, reqs, cfg, kv_capacity_tokens, Role::aggregated, reqs.size());
  SimResult res;
  res.requests = reqs.size();
  std::vector<double> ttft, tpot, e2e, queue;
  for (auto* v : {&ttft, &tpot, &e2e, &queue}) v->reserve(reqs.size());
  std::vector<double> first_token_s(reqs.size(), 0);
  for (std::size_t i = 0; i < reqs.size(); ++i) worker.arrive(static_cast<std::uint32_t>(i), reqs[i].arrival_s);

  const auto wall0 = std::chrono::steady_clock::now();
  while (worker.next_event_s() < std::numeric_limits<double>::infinity()) {
    // Every arrival is queued up front: nothing from outside can cut a decode stretch short.
    const StepEvents ev = worker.step(std::numeric_limits<double>::infinity());
    for (const std::uint32_t id : ev.admitted) queue.push_back(ev.start_s - reqs[id].arrival_s);
    for (const std::uint32_t id : ev.first_tokens) {
      first_token_s[id] = ev.end_s;
      ttft.push_back(ev.end_s - reqs[id].arrival_s);
    }
    for (const std::uint32_t id : ev.finished) {
      const Request& q = reqs[id];
      const double total = ev.end_s - q.arrival_s, first = first_token_s[id] - q.arrival_s;
      e2e.push_back(total);
      if (q.output_tokens > 1) tpot.push_back((total - first) / (q.output_tokens - 1));
      res.ttft_le_e2e = res.ttft_le_e2e && first <= total;
      ++res.completed;
    }
  }
  res.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();

  const WorkerStats& s = worker.stats();
  res.rejected = s.rejected;
  if (res.completed == 0) {
    std::uint64_t smallest = ~std::uint64_t{0};
    for (const Request& q : reqs) smallest = std::min(smallest, worker.footprint(q));
    throw InputError("no request can run: all " + std::to_string(reqs.size()) +
                     " need more KV than the cache holds (the smallest needs " + std::to_string(smallest) +
                     " tokens, the cache holds " + std::to_string(kv_capacity_tokens) + ")");
  }
  res.iterations = s.iterations;
  res.idle_gaps = s.idle_gaps;
  res.prefill_tokens = s.prefill_tokens;
  res.output_tokens = s.output_tokens;
  res.busy_s = s.busy_s;
  res.sim_time_s = worker.clock_s();
  if (!(res.sim_time_s > 0))
    throw InputError("the workload took no simulated time (every iteration evaluated to 0 s): no rate can be given");
  res.batch_peak = s.batch_peak;
  res.mean_batch_tokens = s.iterations ? static_cast<double>(s.batch_tokens) / s.iterations : 0;
  const double cap = kv_capacity_tokens > 0 ? static_cast<double>(kv_capacity_tokens) : 1.0;
  res.kv_used_peak = static_cast<double>(s.kv_used_peak) / cap;
  res.kv_reserved_peak = static_cast<double>(s.kv_reserved_peak) / cap;
  res.ttft_s = Percentiles::of(ttft);
  res.tpot_s = Percentiles::of(tpot);
  res.e2e_s = Percentiles::of(e2e);
  res.queue_s = Percentiles::of(queue);
  return res;
}

// The same for an arch: builds its tree once (ArchModel) and simulates.
template <ServableArch Arch>
SimResult simulate(const Arch& arch, const Timing& timing, std::span<const Request> reqs, const ServerConfig& cfg,
                   std::uint64_t kv_capacity_tokens) {
  ArchModel<Arch> model(arch, timing);
  return simulate(model, reqs, cfg, kv_capacity_tokens);
}

}  // namespace costdsl::serve
