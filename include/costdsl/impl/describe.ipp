// Definitions of costdsl/describe.hpp (see costdsl/detail/config.hpp).
#include <type_traits>
#include <variant>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "costdsl/describe.hpp"

namespace costdsl {

COSTDSL_DECL std::string format_config_value(const ConfigField& f, bool with_provenance) {
  return std::visit(
      [&](const auto& v) -> std::string {
        using V = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<V, Dim>) {
          if (!with_provenance || v.formula.empty() || (v.bindings.size() == 1 && v.formula == v.bindings[0].first))
            return fmt::format("{}", v.value);
          std::string b;
          for (const auto& [sym, val] : v.bindings) b += fmt::format("{}{}={}", b.empty() ? "" : ", ", sym, val);
          return fmt::format("{} = {} [{}]", v.value, v.formula, b);
        } else if constexpr (std::is_same_v<V, std::vector<std::string>>) {
          return fmt::format("{}", fmt::join(v, ","));
        } else {
          return fmt::format("{}", v);
        }
      },
      f.value);
}

namespace detail {
COSTDSL_DECL void describe_node(const Manifest& m, std::size_t i, int depth, std::string& out) {
  const FlatNode& n = m.tree.nodes()[i];
  const std::string indent(static_cast<std::size_t>(depth) * 2, ' ');
  auto children = [&](int d) {
    for (std::uint32_t c = n.first; c < n.first + n.count; ++c) describe_node(m, c, d, out);
  };
  switch (n.kind) {
    case NodeKind::leaf: {
      const SlotDescription& s = m.slots[n.first];
      out += fmt::format("{}{}  {}", indent, s.name, s.kind);
      for (const auto& f : s.config) out += fmt::format("  {}={}", f.name, format_config_value(f));
      if (!s.backends.empty()) out += fmt::format("  backends={}", fmt::join(s.backends, ","));
      out += '\n';
      break;
    }
    case NodeKind::labeled:
      out += fmt::format("{}{}\n", indent, m.tree.labels()[i]);
      children(depth + 1);
      break;
    case NodeKind::scale:
      out += fmt::format("{}× {}\n", indent, n.param);
      children(depth + 1);
      break;
    case NodeKind::max:
    case NodeKind::fanout:  // not in a twin (a Fanout lowers to a max): described as one
      out += fmt::format("{}max over {} ranks{}\n", indent, n.ranks(),
                         n.param != 0 ? " (run-time fanout: the slowest rank's leaves)" : "");
      children(depth + 1);
      break;
    case NodeKind::parallel:
      out += fmt::format("{}parallel streams (overlap {})\n", indent, n.param);
      children(depth + 1);
      break;
    case NodeKind::sum: children(depth); break;
  }
}
}  // namespace detail

COSTDSL_DECL std::string describe(const Manifest& m) {
  std::string out;
  if (!m.tree.nodes().empty()) detail::describe_node(m, 0, 0, out);
  return out;
}

}  // namespace costdsl
