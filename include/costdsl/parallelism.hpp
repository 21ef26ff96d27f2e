#pragma once
// How a model is run, apart from what it is (its shape) and how its numbers are stored
// (Quantization): the degrees of parallelism one worker runs it with. Every frame takes
// the same struct and refuses the settings it has no grain for (a dense frame's ep, a MoE
// frame's hp), static forms at compile time, run-time ones with a ConfigError.
//
//   Llama3<Fixed<deploy(llama3_70b, {.tp = 8})>>            // deployed.hpp
//   DeepseekV3Config::from_hf(hf, {.tp = 1, .ep = 8, .hp = 1})
//
// dp is not a field: a DP-attention MoE frame runs dp = ep / tp attention groups (ep / hp
// under MLA's hp grain), derived so that the three can never disagree.
#include <cstdint>

#include "costdsl/fields.hpp"

namespace costdsl {

struct Parallelism {
  // tp: tensor-parallel degree (a MoE frame's attention TP inside each DP group);
  // ep: expert-parallel ranks (a MoE frame's GPUs; 1 for a dense model);
  // hp: KV-parallel ranks (Helix: decode attention's KV split hp ways, hp × tp GPUs);
  // moe_tp: each expert's width split moe_tp ways inside groups of the ep GPUs (dp 1);
  // kv_replicate: the dense frame's opt-in to tp above the KV heads by copying them (the
  //   MoE frames always copy them, as the frameworks do unasked; worklets/attn_grain.hpp);
  // hop_b: under hp > 1, overlap the HP all-to-all with the next batch slice's attention.
  COSTDSL_FIELDS((std::uint32_t, tp, 1), (std::uint32_t, ep, 1), (std::uint32_t, hp, 1), (std::uint32_t, moe_tp, 1),
                 (bool, kv_replicate, false), (bool, hop_b, false));
  friend constexpr bool operator==(const Parallelism&, const Parallelism&) = default;
};

}  // namespace costdsl
