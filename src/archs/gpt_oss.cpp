// The run-time form of archs/gpt_oss.hpp, instantiated once for every translation unit
// compiled with COSTDSL_SEPARATE_COMPILATION (they see an extern template).
#include "costdsl/archs/gpt_oss.hpp"

template class costdsl::archs::MoeStack<costdsl::archs::GptOssConfig>;
template class costdsl::archs::MoeStack<costdsl::archs::GptOssConfig, costdsl::worklets::ExpertGrain::tp>;
