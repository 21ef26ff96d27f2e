#pragma once
// One deployment a search simulates: its mode, workers, replicas and load.
#include <cstdint>

#include "costdsl/serve/parallel.hpp"

namespace costdsl::serve {

enum class Mode : std::uint8_t { aggregated, disaggregated };

struct Candidate {
  Mode mode = Mode::aggregated;
  Parallel worker;                   // aggregated: the worker; disaggregated: each decode worker
  Parallel prefill;                  // disaggregated: each prefill worker
  std::uint32_t prefill_workers = 0;  // per unit (0 when aggregated)
  std::uint32_t decode_workers = 1;   // per unit (aggregated: the one worker)
  std::uint32_t unit_gpus = 0;        // GPUs of one unit (replica)
  std::uint32_t replicas = 0;         // units deployed
  std::uint32_t batch = 0;            // batch cap of the (decode) worker
  std::uint32_t token_budget = 0;     // max_batch_tokens of the aggregated worker / of each prefill worker
  std::uint32_t prefill_batch = 0;    // disaggregated: each prefill worker's batch cap (0: the spec's max_batch per group)
  std::uint32_t clients = 0;          // closed loop: requests in flight per unit (0: open loop)
  double rate = 0;                    // open loop: requests/s per unit
  double transfer_s = 0;              // disaggregated: one request's KV hand-off

  std::uint32_t gpus() const noexcept { return unit_gpus * replicas; }
};

}  // namespace costdsl::serve
