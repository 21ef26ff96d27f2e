#pragma once
// One simulated deployment of a search: what was deployed, and what it did.
// Trivially copyable (a search sharded over processes ships rows as bytes).
#include <cstdint>

#include "costdsl/serve/candidate.hpp"
#include "costdsl/serve/unit_result.hpp"

namespace costdsl::serve {

enum class Status : std::uint8_t {
  meets,          // every SLA target met (or none given)
  misses,         // ran to the end and missed a target
  stopped_early,  // stopped once a miss was certain: the figures are over the requests finished by then
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
