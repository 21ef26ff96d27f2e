// The per-rank shapes costdsl-profile measures by default: the dense models costdsl
// ships, at each TP degree. One list, in shapes.cpp, so it can later be derived from
// archs/ instead of written out by hand.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace costdsl::profiler {

// A model's global dims (what an arch's config holds).
struct ModelShape {
  std::string name;  // e.g. "llama3_8b"
  std::uint32_t hidden = 0;
  std::uint32_t num_qo_heads = 0;
  std::uint32_t num_kv_heads = 0;
  std::uint32_t head_dim = 0;
  std::uint32_t intermediate = 0;
  std::uint32_t vocab = 0;
  std::vector<std::uint32_t> tp_degrees;  // the TP degrees measured by default
};

// One model at one TP degree: the per-rank dims the kernels see.
struct RankShape {
  std::string model;
  std::uint32_t tp = 1;
  std::uint32_t hidden = 0;            // never sharded
  std::uint32_t num_qo_heads = 0;      // per rank
  std::uint32_t num_kv_heads = 0;      // per rank
  std::uint32_t head_dim = 0;
  std::uint32_t intermediate = 0;      // per rank
  std::uint32_t vocab = 0;             // per rank: vocab/tp rounded up (embed_tp, lm_head_tp)
  std::uint32_t global_qo_heads = 0;
  std::uint32_t global_kv_heads = 0;
};

// The built-in models (Llama-3-8B and -70B, Qwen3-32B).
const std::vector<ModelShape>& builtin_models();

// model × TP degree → per-rank shapes; throws std::invalid_argument on a degree that
// does not divide the heads / intermediate or exceeds the KV heads (design §7).
RankShape rank_shape(const ModelShape& m, std::uint32_t tp);

// Rank shapes of the named models (empty: all built-in) at the given TP degrees
// (empty: each model's own list). Unknown model names throw std::invalid_argument.
std::vector<RankShape> select_rank_shapes(const std::vector<std::string>& models,
                                          const std::vector<std::uint32_t>& tp_degrees);

}  // namespace costdsl::profiler
