#pragma once
// A worklet's node label, one format for every worklet:
//   "attn (AttnBlockTp) [tp=8, qo/rank=8, kv/rank=1]"
// its slot name, its kind, and the resolved dims a reader checks first (no brackets when
// there are none). Build time only.
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>

namespace costdsl::worklets::detail {

struct LabelField {
  std::string_view key;
  std::uint64_t value;
  constexpr LabelField(std::string_view k, std::uint64_t v) noexcept : key(k), value(v) {}
  template <class Dim>
    requires requires(const Dim& d) { d.value(); }
  constexpr LabelField(std::string_view k, const Dim& d) noexcept : key(k), value(d.value()) {}
};

inline std::string worklet_label(std::string_view name, std::string_view worklet,
                                 std::initializer_list<LabelField> fields = {}) {
  std::string out;
  out.append(name).append(" (").append(worklet).append(")");
  const char* sep = " [";
  for (const LabelField& f : fields) {
    out.append(sep).append(f.key).append("=").append(std::to_string(f.value));
    sep = ", ";
  }
  if (fields.size() != 0) out += ']';
  return out;
}

}  // namespace costdsl::worklets::detail
