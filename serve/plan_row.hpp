#pragma once
// One simulated deployment of a search: what was deployed, and what it did.
// Trivially copyable (a search sharded over processes ships rows as bytes).
#include <cstdint>

#include "costdsl/serve/parallel.hpp"
#include "costdsl/serve/unit_result.hpp"

namespace costdsl::serve {

enum class Mode : std::uint8_t { aggregated, disaggregated };
enum class Status : std::uint8_t {
  meets,          // every SLA target met (or none given)
  misses,         // ran to the end and missed a target
  stopped_early,  // stopped once a miss was certain: the figures are over the requests finished by then
};

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
  std::uint32_t clients = 0;          // closed loop: requests in flight per unit (0: open loop)
  double rate = 0;                    // open loop: requests/s per unit
  double transfer_s = 0;              // disaggregated: one request's KV hand-off

  std::uint32_t gpus() const noexcept { return unit_gpus * replicas; }
};

struct PlanRow {
  std::uint32_t job = 0;  // which search job produced it (rows come out in job order)
  Candidate c;
  UnitResult r;
  Status status = Status::meets;
  double sla_ratio = 0;  // the largest percentile / limit over the targets (<= 1: met)

  double tokens_per_s_gpu() const noexcept { return c.unit_gpus ? r.output_tokens_per_s / c.unit_gpus : 0.0; }
  double tokens_per_s() const noexcept { return r.output_tokens_per_s * c.replicas; }  // the whole deployment
  double tokens_per_s_user() const noexcept { return r.tokens_per_s_user; }
  double concurrency() const noexcept { return r.in_flight * c.replicas; }
};

}  // namespace costdsl::serve
