#pragma once
// The manifest: everything a build knows that the per-iteration path does not
// (INV-5): per slot its dotted name, kernel kind, config (dims with formulas and
// bindings) and backends; the flat nodes; labels index-aligned with the nodes.
// Re-aggregating a per-slot metric row over `tree` reproduces the total exactly.
// As JSON: manifest_json.hpp.
#include <string>
#include <utility>
#include <vector>

#include "costdsl/concepts.hpp"
#include "costdsl/config_field.hpp"
#include "costdsl/family.hpp"
#include "costdsl/flat_tree.hpp"

namespace costdsl {

struct SlotDescription {
  std::string name;  // dotted path
  std::string kind;  // kernel kind
  Family family = Family::other;  // the kernel's (K::family): what the pictures colour by
  std::vector<ConfigField> config;
  std::vector<std::string> backends;
  std::vector<std::string> provenance;  // per backend, who measured its table (Kernel::provenance); may be empty
};

struct Manifest {
  std::vector<SlotDescription> slots;
  FlatTree tree;
};

}  // namespace costdsl
