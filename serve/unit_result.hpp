#pragma once
// What simulating one deployment unit under a Load reports.
#include <cstdint>

#include "costdsl/serve/percentiles.hpp"

namespace costdsl::serve {

struct UnitResult {
  Percentiles ttft_s, tpot_s, e2e_s;  // over the measured requests that finished
  double output_tokens_per_s = 0;     // the unit's output tokens per second over the measurement window
  double tokens_per_s_user = 0;       // 1 / mean TPOT: the speed one user sees once streaming
  double in_flight = 0;               // mean requests in the unit: the clients, or rate × mean latency
  std::uint32_t warmup = 0;           // leading requests run but left out of the statistics
  std::uint32_t measured = 0;         // requests the statistics are over (when not stopped early)
  std::uint32_t finished = 0;         // measured requests that finished
  bool stopped_early = false;         // the SLA was certainly missed: the run stopped there
  std::uint64_t iterations = 0;       // over all the unit's workers
  std::uint32_t replayed = 0;         // closed loop: requests of a settled cycle's repeats, replayed not stepped
  double sim_time_s = 0;              // the unit's clock at the end
};

}  // namespace costdsl::serve
