#pragma once
// BatchFeed: one whole-model batch to an arch's slot inputs, the way `costdsl eval`
// builds them: a dense arch takes the batch whole (a KV-parallel one deals its KV over
// the hp ranks once, in an InputScratch); a DP-attention MoE arch takes it dealt over its
// DP groups (DpDeal) with a routing, its per-group lists built in an InputScratch. Both
// buffers are kept, so once warm a call allocates nothing; the inputs it returns borrow
// them and stay valid until the next call.
//
//   archs::BatchFeed feed;                        // one per simulator thread
//   for (...) clock += evaluate(tree, feed(arch, batch)).time_s;
#include "costdsl/arch_def.hpp"
#include "costdsl/archs/support/input_scratch.hpp"
#include "costdsl/archs/support/moe_iteration.hpp"

namespace costdsl::archs {

class BatchFeed {
 public:
  template <ArchDef Arch>
  auto operator()(const Arch& arch, const ops::AttentionBatch& batch, ops::moe::Routing routing = {}) {
    if constexpr (DpArch<Arch>) {
      return arch.inputs(deal_.deal(batch, arch.resolved().dp, routing), scratch_);
    } else if constexpr (requires { arch.inputs(batch, scratch_); }) {
      return arch.inputs(batch, scratch_);  // KV-parallel dense: the per-rank KV deal in the scratch
    } else {
      return arch.inputs(batch);  // dense: no groups, no routing
    }
  }

 private:
  DpDeal deal_;
  InputScratch scratch_;
};

}  // namespace costdsl::archs
