#pragma once
// The DP-attention MoE wiring of archs/frames/moe_stack.hpp (Qwen3-MoE, Mixtral, gpt-oss):
// the embedding and LM head run per DP group, and each decoder layer runs its attention
// block and router per DP group, then its experts over all ranks.
//
//   build:  dp_model(dp, embed.build(t), layers, head.build(t))
//           with layers built from dp_moe_layer(dp, sum(attn.build(t), router.build(t)), experts.build(t))
//   inputs: dp_model_inputs(groups, work, embed, layer_inputs, head)
//           with layer_inputs from dp_moe_layer_inputs(groups, work, routing, experts, group_inputs)
//
// The inputs follow the tree's slot order by construction: the same helper pair
// builds both. `groups` is an OwnedGroups or a ScratchGroups (dp_groups.hpp), `work`
// the iteration's dp_work (moe_iteration.hpp).
#include <cstddef>
#include <cstdint>
#include <utility>

#include "costdsl/archs/support/dp_groups.hpp"
#include "costdsl/archs/support/moe_iteration.hpp"
#include "costdsl/concepts.hpp"
#include "costdsl/inputs.hpp"
#include "costdsl/ops/moe/routing.hpp"
#include "costdsl/sum.hpp"

namespace costdsl::archs {

template <CostNode Embed, CostNode Layers, CostNode Head>
auto dp_model(std::uint64_t dp, Embed embed, Layers layers, Head head) {
  return sum(dp_groups(dp, std::move(embed)), std::move(layers), dp_groups(dp, std::move(head)));
}

template <CostNode Group, CostNode Experts>
auto dp_moe_layer(std::uint64_t dp, Group group, Experts experts) {
  return sum(dp_groups(dp, std::move(group)), std::move(experts));
}

// group_inputs(g): DP group g's inputs for the group section (its attention and router);
// after_experts: the inputs of what runs beside the experts (a shared expert), in slot order.
template <class Groups, class Work, class Experts, class GroupInputs, class... AfterExperts>
auto dp_moe_layer_inputs(Groups& groups, const Work& work, const ops::moe::Routing& routing, const Experts& experts,
                         GroupInputs&& group_inputs, AfterExperts&&... after_experts) {
  return costdsl::inputs(groups.fan(work.groups.size(), group_inputs),
                         groups.stored(experts, {work.tokens, work.max_slice, routing}),
                         std::forward<AfterExperts>(after_experts)...);
}

template <class Groups, class Work, class Embed, class LayerInputs, class Head>
auto dp_model_inputs(Groups& groups, const Work& work, const Embed& embed, LayerInputs&& layer_inputs,
                     const Head& head) {
  const auto& w = work.groups;
  return costdsl::inputs(groups.fan(w.size(), [&](std::size_t g) { return embed.inputs({w[g].attention.append_tokens}); }),
                         nest<"layer">(std::forward<LayerInputs>(layer_inputs)),
                         groups.fan(w.size(), [&](std::size_t g) { return head.inputs({w[g].requests}); }));
}

}  // namespace costdsl::archs
