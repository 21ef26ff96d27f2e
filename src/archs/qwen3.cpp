// The run-time form of archs/qwen3.hpp, instantiated once for every translation unit
// compiled with COSTDSL_SEPARATE_COMPILATION (they see an extern template).
#include "costdsl/archs/qwen3.hpp"

template class costdsl::archs::DenseStack<costdsl::archs::Qwen3Config>;
template class costdsl::archs::DenseStack<costdsl::archs::Qwen3Config, costdsl::archs::AttnGrain::hptp>;
