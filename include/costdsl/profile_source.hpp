#pragma once
// Where a kernel's measured tables come from when it is bound (build time).
//
// A kernel states what it is (kind, config values, candidate backends, how its
// inputs map onto cache axes) and gets back, per backend, the fitted interpolation
// caches of its config. The interface keeps the CSV parse and the grid fit out of the
// evaluation headers: ProfileDb (profile_db.hpp) implements it over data/profiles/;
// tests may implement it in memory.
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "costdsl/interp/axis_scale.hpp"
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
  // Per input axis (cache order); empty: each axis's scale is detected from its grid.
  std::span<const interp::AxisScale> axis_scales = {};
  // Integer config columns a config missing from the table may blend along (a GEMM's
  // n, k): its time is the multilinear blend of the neighbouring measured configs.
  std::span<const std::string_view> interpolated_config = {};
  // The config's model time (the roofline's, any unit) at a point in cache coordinates:
  // a 2D or 3D table's missing cells are estimated as their measured neighbours'
  // efficiency times it (interp/fill_missing.hpp). Empty: missing cells stay missing and
  // a query renormalizes over the corners present. A source fits a table once, so the
  // first binding of a config fills it for every later one.
  std::function<double(std::span<const double>)> model_time = {};
  // Per input axis of a one-axis table: the alignment whose multiples, and the points one
  // past them, form curves of their own (interp::AxisSpec::alignment); empty: none.
  std::span<const std::uint32_t> axis_alignment = {};
};

// A fitted cache (interp::Interp1D / 2D / 3D by schema.inputs.size()) and its weight.
struct TableCorner {
  double weight = 1;
  std::shared_ptr<const void> cache;
};

// One backend's tables. time: empty where neither the config nor its neighbours were
// measured for this backend; one corner of weight 1 for the config's own table; 2^F
// weighted corners for a blend along F interpolated config columns. energy: the config's
// own table only (null: not measured).
struct BackendTables {
  std::vector<TableCorner> time;
  std::shared_ptr<const void> energy;
  bool extrapolated = false;  // the blend reaches past the outermost measured configs
  std::string provenance;     // who measured them ("SGLang 0.5.14"; see ProfileGroup)
};

class ProfileSource {
 public:
  virtual ~ProfileSource() = default;
  // One entry per requested backend, in order. Throws DataError for a malformed table.
  virtual std::vector<BackendTables> bind(const TableRequest& request) = 0;
  // The config keys measured for `backend` in the kind's table on `gpu` (schema.config
  // order), for a kernel whose own config has none to find a neighbour. A source that
  // cannot list them answers none.
  virtual std::vector<std::vector<std::string>> keys(const std::string& gpu, const ProfileSchema& schema,
                                                     const std::string& backend) {
    (void)gpu, (void)schema, (void)backend;
    return {};
  }
  // Fit-time warnings (dropped samples, monotonicity breaks) so far, in order.
  virtual const std::vector<std::string>& warnings() const noexcept = 0;
};

}  // namespace costdsl
