// The run-time form of archs/llama3.hpp, instantiated once for every translation unit
// compiled with COSTDSL_SEPARATE_COMPILATION (they see an extern template).
#include "costdsl/archs/llama3.hpp"

template class costdsl::archs::DenseStack<costdsl::archs::Llama3Config>;
template class costdsl::archs::DenseStack<costdsl::archs::Llama3Config, costdsl::archs::AttnGrain::hptp>;
