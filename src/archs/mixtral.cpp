// The run-time form of archs/mixtral.hpp, instantiated once for every translation unit
// compiled with COSTDSL_SEPARATE_COMPILATION (they see an extern template).
#include "costdsl/archs/mixtral.hpp"

template class costdsl::archs::MoeStack<costdsl::archs::MixtralConfig>;
template class costdsl::archs::MoeStack<costdsl::archs::MixtralConfig, costdsl::worklets::ExpertGrain::tp>;
