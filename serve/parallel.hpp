#pragma once
// The parallelism of one worker, as every arch takes it (costdsl/parallelism.hpp): the
// planner's search enumerates tp, ep and hp (and moe_tp for pinned deployments); a MoE
// arch runs dp = ep / tp attention groups.
#include "costdsl/parallelism.hpp"

namespace costdsl::serve {

using Parallel = costdsl::Parallelism;

}  // namespace costdsl::serve
