// The run-time form of archs/qwen3_moe.hpp, instantiated once for every translation unit
// compiled with COSTDSL_SEPARATE_COMPILATION (they see an extern template).
#include "costdsl/archs/qwen3_moe.hpp"

template class costdsl::archs::MoeStack<costdsl::archs::Qwen3MoeConfig>;
template class costdsl::archs::MoeStack<costdsl::archs::Qwen3MoeConfig, costdsl::worklets::ExpertGrain::tp>;
