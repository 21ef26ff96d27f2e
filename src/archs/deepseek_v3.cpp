// The run-time form of archs/deepseek_v3.hpp, instantiated once for every translation unit
// compiled with COSTDSL_SEPARATE_COMPILATION (they see an extern template).
#include "costdsl/archs/deepseek_v3.hpp"

template class costdsl::archs::DeepseekV3<costdsl::archs::DeepseekV3Config>;
template class costdsl::archs::DeepseekV3<costdsl::archs::DeepseekV3Config, costdsl::archs::AttnGrain::hptp>;
template class costdsl::archs::DeepseekV3<costdsl::archs::DeepseekV3Config, costdsl::archs::AttnGrain::tp, costdsl::worklets::ExpertGrain::tp>;
