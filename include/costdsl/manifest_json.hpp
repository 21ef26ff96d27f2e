#pragma once
// The manifest as JSON (what `costdsl manifest` prints), and back: the part of a
// manifest a re-aggregation needs (strict: any structural error is a DataError
// naming the node).
#include <nlohmann/json.hpp>

#include "costdsl/detail/config.hpp"
#include "costdsl/flat_tree.hpp"
#include "costdsl/manifest.hpp"

namespace costdsl {

COSTDSL_DECL nlohmann::json to_json(const ConfigField& f);
COSTDSL_DECL nlohmann::json to_json(const Manifest& m);
COSTDSL_DECL FlatTree flat_tree_from_manifest(const nlohmann::json& j);

}  // namespace costdsl

#if !defined(COSTDSL_SEPARATE_COMPILATION)
#include "costdsl/impl/manifest_json.ipp"
#endif
