// dim<"name">(form) must name an integer field of the form's config.
#include <cstdint>

#include "costdsl/fields.hpp"
#include "costdsl/form.hpp"
using namespace costdsl;

struct Attn {
  COSTDSL_FIELDS((std::uint32_t, num_kv_heads), (std::uint32_t, tp));
};

int main() {
  constexpr Fixed<Attn{8, 2}> form;
#ifdef COSTDSL_CONTROL
  constexpr auto tp = dim<"tp">(form);
#else
  constexpr auto tp = dim<"tp_size">(form);
#endif
  return static_cast<int>(tp.value()) - 2;
}
