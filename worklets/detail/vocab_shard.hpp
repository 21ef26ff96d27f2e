#pragma once
// The vocabulary rows one GPU of a TP group holds, for the vocabulary-parallel embedding
// and lm_head. The frameworks pad the vocabulary until it splits evenly (vLLM to a multiple
// of 64 before the split, `pad_vocab_size` in vllm/model_executor/layers/
// vocab_parallel_embedding.py; TensorRT-LLM to a multiple of tp), so a shard is the
// vocabulary over tp rounded up, and no degree is refused for not dividing it.
#include <cstdint>
#include <string>

#include "costdsl/dim.hpp"
#include "costdsl/dim_expr.hpp"

namespace costdsl::worklets::detail {

constexpr std::uint64_t vocab_rows_per_rank(std::uint64_t vocab, std::uint64_t tp) noexcept {
  return (vocab + tp - 1) / tp;
}

// The same as a kernel config's dim, with its provenance.
template <DimExpr Vocab, DimExpr Tp>
Dim vocab_rows_per_rank(const Vocab& vocab, const Tp& tp) {
  const std::uint64_t v = vocab.value(), n = tp.value();
  return Dim{vocab_rows_per_rank(v, n), "vocab/tp rounded up", {{"vocab", v}, {"tp", n}}};
}

}  // namespace costdsl::worklets::detail
