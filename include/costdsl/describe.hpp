#pragma once
// describe(): the labeled tree as text, one leaf per line with its kind and
// config (dims with the formula they came from), e.g.
//
//   model (Llama3) [tp=4]
//     × 32
//       attn (AttnBlockTp) [tp=4]
//         model.layer.attn.qkv_proj  gemm  n=1536 = (num_qo_heads/tp+2*num_kv_heads/tp)*head_dim {...}
#include <string>

#include "costdsl/detail/config.hpp"
#include "costdsl/lower.hpp"
#include "costdsl/manifest.hpp"

namespace costdsl {

// One config value as text: a dim with the formula it came from and its bindings
// ("1536 = (num_qo_heads/tp+2*num_kv_heads/tp)*head_dim [num_qo_heads=32, ...]").
COSTDSL_DECL std::string format_config_value(const ConfigField& f, bool with_provenance = true);

// The labeled tree as text.
COSTDSL_DECL std::string describe(const Manifest& m);

template <CostNode Tree>
std::string describe(const Tree& tree) {
  return describe(make_manifest(tree));
}

}  // namespace costdsl

#if !defined(COSTDSL_SEPARATE_COMPILATION)
#include "costdsl/impl/describe.ipp"
#endif
