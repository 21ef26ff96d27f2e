// A family's config.json row must name a field of its frame's shape: a dense family whose
// head_dim row is misspelt would otherwise never read head_dim, so it must not compile;
// the control spells it.
#include <array>
#include <string_view>

#include "costdsl/archs/frames/dense_stack.hpp"
#include "costdsl/hf_keys.hpp"
#include "costdsl/load_hf_config.hpp"
using namespace costdsl;

struct MisspeltLayer {
  static constexpr std::string_view name = "Misspelt";
  static constexpr ops::QkNorm qk_norm = ops::QkNorm::none;
#ifdef COSTDSL_CONTROL
  static constexpr std::array hf_keys{hf_key("head_dim", "head_dim")};
#else
  static constexpr std::array hf_keys{hf_key("head_dims", "head_dim")};
#endif
};

int main() {
  const HfConfig hf = parse_hf_config(R"({"hidden_size": 64, "num_attention_heads": 4, "head_dim": 16})", "m.json");
  return archs::DenseShape<MisspeltLayer>::from_hf(hf).head_dim == 16 ? 0 : 1;
}
