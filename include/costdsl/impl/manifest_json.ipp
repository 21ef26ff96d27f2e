// Definitions of costdsl/manifest_json.hpp (see costdsl/detail/config.hpp).
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "costdsl/error.hpp"
#include "costdsl/manifest_json.hpp"

namespace costdsl {

COSTDSL_DECL nlohmann::json to_json(const ConfigField& f) {
  return std::visit(
      [](const auto& v) -> nlohmann::json {
        using V = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<V, Dim>) {
          nlohmann::json j{{"value", v.value}};
          if (!v.formula.empty()) {
            j["formula"] = v.formula;
            nlohmann::json b = nlohmann::json::object();
            for (const auto& [sym, val] : v.bindings) b[sym] = val;
            j["bindings"] = std::move(b);
          }
          return j;
        } else {
          return nlohmann::json(v);
        }
      },
      f.value);
}

COSTDSL_DECL nlohmann::json to_json(const Manifest& m) {
  nlohmann::json slots = nlohmann::json::array();
  for (const auto& s : m.slots) {
    nlohmann::json config = nlohmann::json::object();
    for (const auto& f : s.config) config[f.name] = to_json(f);
    slots.push_back({{"name", s.name},
                     {"kind", s.kind},
                     {"family", name(s.family)},
                     {"config", std::move(config)},
                     {"backends", s.backends}});
  }
  nlohmann::json nodes = nlohmann::json::array();
  for (const auto& n : m.tree.nodes()) {
    nlohmann::json j{{"kind", name(n.kind)}};
    if (n.kind == NodeKind::leaf) {
      j["slot"] = n.first;
    } else {
      j["children"] = {n.first, n.count};
      if (n.kind == NodeKind::scale) j["n"] = n.param;
      if (n.kind == NodeKind::parallel) j["overlap"] = n.param;
      if (n.kind == NodeKind::max && n.param != 0) j["ranks"] = n.param;
    }
    nodes.push_back(std::move(j));
  }
  return {{"slots", std::move(slots)}, {"nodes", std::move(nodes)}, {"node_labels", m.tree.labels()}};
}

namespace detail {
COSTDSL_DECL NodeKind parse_node_kind(const std::string& s, std::size_t i) {
  for (NodeKind k : {NodeKind::leaf, NodeKind::sum, NodeKind::max, NodeKind::parallel, NodeKind::scale,
                     NodeKind::labeled})
    if (name(k) == s) return k;
  throw DataError("manifest: nodes[" + std::to_string(i) + "].kind '" + s +
                  "' is not one of leaf, sum, max, parallel, scale, labeled");
}

template <class T>
T field(const nlohmann::json& j, const char* key, const std::string& where) {
  if (!j.is_object() || !j.contains(key)) throw DataError("manifest: " + where + " has no '" + key + "'");
  try {
    return j.at(key).get<T>();
  } catch (const nlohmann::json::exception&) {
    throw DataError("manifest: " + where + "." + key + " has the wrong type (" + j.at(key).dump() + ")");
  }
}
}  // namespace detail

COSTDSL_DECL FlatTree flat_tree_from_manifest(const nlohmann::json& j) {
  const auto nodes_json = detail::field<nlohmann::json>(j, "nodes", "root");
  const auto labels = detail::field<std::vector<std::string>>(j, "node_labels", "root");
  const auto slots_json = detail::field<nlohmann::json>(j, "slots", "root");
  if (!nodes_json.is_array() || !slots_json.is_array()) throw DataError("manifest: nodes and slots must be arrays");
  std::vector<FlatNode> nodes;
  for (std::size_t i = 0; i < nodes_json.size(); ++i) {
    const auto& n = nodes_json[i];
    const std::string where = "nodes[" + std::to_string(i) + "]";
    FlatNode f;
    f.kind = detail::parse_node_kind(detail::field<std::string>(n, "kind", where), i);
    if (f.kind == NodeKind::leaf) {
      f.first = detail::field<std::uint32_t>(n, "slot", where);
    } else {
      const auto range = detail::field<std::vector<std::uint32_t>>(n, "children", where);
      if (range.size() != 2) throw DataError("manifest: " + where + ".children must be [first, count]");
      f.first = range[0];
      f.count = range[1];
      if (f.kind == NodeKind::scale) f.param = detail::field<double>(n, "n", where);
      if (f.kind == NodeKind::parallel) f.param = detail::field<double>(n, "overlap", where);
      if (f.kind == NodeKind::max && n.contains("ranks")) f.param = detail::field<double>(n, "ranks", where);
    }
    nodes.push_back(f);
  }
  return FlatTree(std::move(nodes), labels, slots_json.size());
}

}  // namespace costdsl
