#pragma once
// InputsFollowSlots<Tree, Ins>: the input list Ins matches Tree's slot list one entry per
// slot (same dotted paths, same order, each value of its kernel's Input type; one span or
// RankRuns per Fanout). This is INV-2 as a concept: evaluate() diagnoses a mismatch at the
// call, the layer concepts (WorkletDef, DenseArch, DpArch) require it of every worklet and
// arch, so a worklet whose inputs() drifts from its build() fails where it is declared.
#include "costdsl/concepts.hpp"
#include "costdsl/detail/input_match.hpp"
#include "costdsl/slots.hpp"

namespace costdsl {

template <class Tree, class Ins>
concept InputsFollowSlots = CostNode<Tree> && detail::input_match<input_list<Tree>, Ins>::matches;

}  // namespace costdsl
