#include "shapes.hpp"

#include <stdexcept>

namespace costdsl::profiler {

const std::vector<ModelShape>& builtin_models() {
  static const std::vector<ModelShape> models{
      {"llama3_8b", 4096, 32, 8, 128, 14336, 128256, {1, 2, 4, 8}},
      {"llama3_70b", 8192, 64, 8, 128, 28672, 128256, {1, 2, 4, 8}},
      // data/models/qwen3_32b.json: Llama's attention layout at 70B's head counts, its own
      // hidden/intermediate/vocab, so the GEMM and lm_head grids gain new n/k.
      {"qwen3_32b", 5120, 64, 8, 128, 25600, 151936, {1, 2, 4, 8}},
  };
  return models;
}

RankShape rank_shape(const ModelShape& m, std::uint32_t tp) {
  auto bad = [&](const std::string& why) {
    return std::invalid_argument(m.name + " at tp " + std::to_string(tp) + ": " + why);
  };
  if (tp == 0) throw bad("the TP degree must be at least 1");
  if (m.num_qo_heads % tp != 0) throw bad("num_qo_heads " + std::to_string(m.num_qo_heads) + " is not divisible");
  if (m.num_kv_heads % tp != 0 || tp > m.num_kv_heads)
    throw bad("num_kv_heads " + std::to_string(m.num_kv_heads) + " is not divisible (no KV-head replication)");
  if (m.intermediate % tp != 0) throw bad("intermediate " + std::to_string(m.intermediate) + " is not divisible");
  RankShape r;
  r.model = m.name;
  r.tp = tp;
  r.hidden = m.hidden;
  r.num_qo_heads = m.num_qo_heads / tp;
  r.num_kv_heads = m.num_kv_heads / tp;
  r.head_dim = m.head_dim;
  r.intermediate = m.intermediate / tp;
  r.vocab = (m.vocab + tp - 1) / tp;  // worklets/detail/vocab_shard.hpp: padded until it splits
  r.global_qo_heads = m.num_qo_heads;
  r.global_kv_heads = m.num_kv_heads;
  return r;
}

std::vector<RankShape> select_rank_shapes(const std::vector<std::string>& models,
                                          const std::vector<std::uint32_t>& tp_degrees) {
  std::vector<const ModelShape*> chosen;
  if (models.empty()) {
    for (const auto& m : builtin_models()) chosen.push_back(&m);
  } else {
    for (const auto& name : models) {
      const ModelShape* found = nullptr;
      for (const auto& m : builtin_models())
        if (m.name == name) found = &m;
      if (found == nullptr) {
        std::string known;
        for (const auto& m : builtin_models()) known += (known.empty() ? "" : ", ") + m.name;
        throw std::invalid_argument("unknown model '" + name + "' (built-in: " + known + ")");
      }
      chosen.push_back(found);
    }
  }
  std::vector<RankShape> out;
  for (const ModelShape* m : chosen)
    for (std::uint32_t tp : tp_degrees.empty() ? m->tp_degrees : tp_degrees) out.push_back(rank_shape(*m, tp));
  return out;
}

}  // namespace costdsl::profiler
