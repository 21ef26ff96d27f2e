#pragma once
// What one simulate() run reports.
#include <cstddef>
#include <cstdint>

#include "costdsl/serve/percentiles.hpp"

namespace costdsl::serve {

struct SimResult {
  std::size_t requests = 0, completed = 0, rejected = 0;  // rejected: footprint larger than the whole cache
  std::uint64_t iterations = 0, idle_gaps = 0;
  std::uint64_t prefill_tokens = 0, output_tokens = 0;
  double sim_time_s = 0;  // clock when the last request finished
  double busy_s = 0;      // Σ iteration times
  Percentiles ttft_s, tpot_s, e2e_s, queue_s;
  double kv_reserved_peak = 0, kv_used_peak = 0;  // fractions of the KV capacity
  std::uint32_t batch_peak = 0;                   // running requests at most
  double mean_batch_tokens = 0;
  double wall_s = 0;        // the simulation loop's own wall time
  bool ttft_le_e2e = true;  // per request, checked as they finish

  // Rates over the simulated time. simulate() only returns a result in which at least
  // one request completed after a positive time, so these are finite and positive.
  double output_tokens_per_s() const noexcept { return sim_time_s > 0 ? output_tokens / sim_time_s : 0.0; }
  double total_tokens_per_s() const noexcept {
    return sim_time_s > 0 ? (output_tokens + prefill_tokens) / sim_time_s : 0.0;
  }
  double requests_per_s() const noexcept { return sim_time_s > 0 ? completed / sim_time_s : 0.0; }
  double ns_per_iteration() const noexcept { return iterations ? wall_s * 1e9 / iterations : 0.0; }
  double sim_s_per_wall_s() const noexcept { return wall_s > 0 ? sim_time_s / wall_s : 0.0; }
};

}  // namespace costdsl::serve
