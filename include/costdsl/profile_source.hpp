#pragma once
// Where a kernel's measured tables come from when it is bound (build time).
//
// A kernel states what it is (kind, config values, candidate backends, how its
// inputs map onto cache axes) and gets back, per backend, the fitted interpolation
// caches of its config. The interface keeps the CSV parse and the grid fit out of the
// evaluation headers: ProfileDb (profile_db.hpp) implements it over data/profiles/;
// tests may implement it in memory.
#include <memory>
#include <string>
#include <vector>

#include "costdsl/interp/off_grid.hpp"
#include "costdsl/profile_schema.hpp"

namespace costdsl {

struct TableRequest {
  const std::string& gpu;                    // canonical GPU name
  const ProfileSchema& schema;               // kind, config columns, input axes (= cache dims)
  const std::vector<std::string>& key;       // the config's values as table text, schema.config order
  const std::vector<std::string>& backends;  // candidates, in the kernel's order
  void (*to_cache)(double* point);           // maps a table row's inputs onto cache axes in place; null = identity
  interp::OffGrid off_grid;                  // how a 2D cache answers off its grid
};

// One backend's fitted caches: interp::Interp1D / 2D / 3D by schema.inputs.size(), or
// null where the table has no rows for this config and backend (energy: or no energy).
struct BackendTables {
  std::shared_ptr<const void> time, energy;
};

class ProfileSource {
 public:
  virtual ~ProfileSource() = default;
  // One entry per requested backend, in order. Throws DataError for a malformed table.
  virtual std::vector<BackendTables> bind(const TableRequest& request) = 0;
  // Fit-time warnings (dropped samples, monotonicity breaks) so far, in order.
  virtual const std::vector<std::string>& warnings() const noexcept = 0;
};

}  // namespace costdsl
