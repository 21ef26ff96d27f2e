#pragma once
// KernelBinding: what Kernel<K> keeps from binding that does not depend on its kind (the
// backends, the GPU, the tables each backend answers from, which one is the sole table)
// and the build-time code that fills it. Not a template, so a header-only translation
// unit compiles this code, its members' destructors and its error paths once, not once per
// kernel kind it builds: ~30% of an arch TU's object code was those copies (bench/README.md,
// "Compile time"). Caches are held as `const void*`: Kernel<K> knows their type
// (interp::Interp1D / 2D / 3D) and casts back on the hot path, at no cost.
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "costdsl/detail/analytic_memo.hpp"
#include "costdsl/error.hpp"
#include "costdsl/metrics.hpp"
#include "costdsl/profile_source.hpp"
#include "costdsl/timing.hpp"

namespace costdsl::detail {

class KernelBinding {
 public:
  const std::vector<std::string>& backends() const noexcept { return backends_; }
  // Per backend, who measured the table it answers from ("SGLang 0.5.14"; a SCALED table:
  // its neighbour config's); empty where it has none.
  const std::vector<std::string>& provenance() const noexcept { return provenance_; }
  const std::string& gpu() const noexcept { return gpu_; }
  // "profile" when at least one backend has a measured table for this config.
  std::string_view source() const noexcept { return measured_ ? "profile" : "roofline"; }
  // Whether this leaf remembers its analytic times by its count input (no measured table,
  // one count input, Timing::analytic_memo() > 0).
  bool memoised() const noexcept { return memo_ != nullptr; }

  // Whether another kernel gives this one's metrics for every input: the same binding
  // request (kind, config, backends, framework, roofline kinds: Timing::answer_id) through the same Timing
  // (its roofline object, which each kernel owns, so its address is never another
  // Timing's). A repeated slot's test on the hot path (detail/shared_slots.hpp).
  bool same_answers_as(const KernelBinding& o) const noexcept {
    return answer_id_ == o.answer_id_ && roofline_ == o.roofline_;
  }

 protected:
  KernelBinding(const Timing& timing, std::vector<std::string> backends)
      : backends_(std::move(backends)), gpu_(timing.gpu().name), roofline_(timing.roofline()), mode_(timing.mode()) {}

  void check_backends(std::string_view kind) const {
    if (backends_.empty()) throw ConfigError(std::string(kind) + ": the backend list is empty");
    if (backends_.size() >= no_backend) throw ConfigError(std::string(kind) + ": too many backends");
  }

  // The source's answer, one entry per backend: each backend's corners, a bounded backend
  // (`bounded`, null: none) marked; the preferred framework's table, where it holds the
  // config, sets the other frameworks' aside.
  void adopt(std::string_view kind, const std::vector<BackendTables>& tables, const std::string& framework,
             bool (*bounded)(std::string_view)) {
    bound_.resize(backends_.size());
    energy_caches_.resize(backends_.size());
    provenance_.resize(backends_.size());
    for (std::size_t b = 0; b < backends_.size() && b < tables.size(); ++b) {
      const BackendTables& t = tables[b];
      if (t.time.size() > max_corners)
        throw InputError(std::string(kind) + ": the profile source blended " + std::to_string(t.time.size()) +
                         " configs; a kernel takes at most " + std::to_string(max_corners));
      Bound& bound = bound_[b];
      if (bounded != nullptr) bound.bounded = bounded(backends_[b]);
      for (const TableCorner& corner : t.time) {
        tables_.push_back(corner.cache);
        bound.corners[bound.num_corners++] = {corner.weight, corner.cache.get()};
      }
      if (t.extrapolated) bound.coverage |= Coverage::extrapolated;
      energy_caches_[b] = t.energy;
      if (!t.time.empty()) provenance_[b] = t.provenance;
      measured_ = measured_ || bound.num_corners > 0;
    }
    const auto preferred = std::find(backends_.begin(), backends_.end(), framework);
    if (preferred != backends_.end() && bound_[static_cast<std::size_t>(preferred - backends_.begin())].num_corners > 0)
      for (std::size_t b = 0; b < backends_.size(); ++b)
        if (backends_[b] != framework && Timing::is_kernel_framework(backends_[b])) {
          bound_[b] = Bound{};
          provenance_[b].clear();
        }
  }

  // A neighbour config's table rescaled to this config (Coverage::scaled) answers for `backend`.
  void adopt_scaled(std::size_t backend, std::shared_ptr<const void> scaled, const BackendTables& from) {
    Bound& bound = bound_[backend];
    bound.corners[0] = {1.0, scaled.get()};
    bound.num_corners = 1;
    bound.coverage |= Coverage::scaled | (from.extrapolated ? Coverage::extrapolated : Coverage::none);
    tables_.push_back(std::move(scaled));
    provenance_[backend] = from.provenance;
    measured_ = true;
  }

  // Binding done: where exactly one backend answers from one table, eval's short path reads it.
  void pick_sole() {
    std::size_t num_measured = 0;
    for (const Bound& bound : bound_) num_measured += bound.num_corners > 0 ? 1 : 0;
    for (std::size_t b = 0; b < bound_.size() && num_measured == 1; ++b)
      if (bound_[b].num_corners == 1)
        sole_ = {bound_[b].corners[0].cache, bound_[b].corners[0].weight, bound_[b].coverage, bound_[b].bounded,
                 static_cast<std::uint8_t>(b)};
  }

  void make_memo(std::uint32_t capacity) { memo_ = std::make_shared<AnalyticMemo>(capacity); }

  // The request's text (kind, preferred framework, whether the kind takes the roofline,
  // the backends and their count, then each config field's name and text, every part
  // length-prefixed: two requests have the same text only if they are the same) and its
  // number through `timing`.
  void name_request(const Timing& timing, std::string_view kind, const std::vector<std::string>& config_text) {
    std::string request;
    const auto add = [&](std::string_view part) {
      request += std::to_string(part.size());
      request += ':';
      request += part;
    };
    add(kind);
    add(timing.kernel_framework());
    add(timing.takes_roofline(kind) ? "roofline" : "");
    add(std::to_string(backends_.size()));
    for (const std::string& b : backends_) add(b);
    for (const std::string& f : config_text) add(f);
    answer_id_ = timing.answer_id(request);
  }

  std::vector<std::string> backends_;
  std::string gpu_;
  std::shared_ptr<const Roofline> roofline_;
  TimingMode mode_;
  bool measured_ = false;
  // What one backend answers from: its config's table, or the weighted tables of up to
  // four neighbouring configs (K::interpolated_config); a bounded backend
  // (K::bounded_backend) answers only on its measured grid. Raw pointers, held inline,
  // for the hot path; tables_ owns them.
  static constexpr std::size_t max_corners = 4;
  struct Corner {
    double weight = 1;
    const void* cache = nullptr;
  };
  struct Bound {
    std::array<Corner, max_corners> corners{};
    std::size_t num_corners = 0;  // 0: not measured
    Coverage coverage = Coverage::none;
    bool bounded = false;
  };
  std::vector<Bound> bound_;
  std::vector<std::string> provenance_;  // per backend (build-time report only)
  // The one table, when binding found exactly one backend measured with one corner
  // (cache null otherwise): eval's short path reads only this.
  struct Sole {
    const void* cache = nullptr;
    double weight = 1;
    Coverage coverage = Coverage::none;
    bool bounded = false;
    std::uint8_t backend = no_backend;
  };
  Sole sole_;
  std::vector<std::shared_ptr<const void>> energy_caches_;  // exact configs only
  std::vector<std::shared_ptr<const void>> tables_;
  std::shared_ptr<AnalyticMemo> memo_;  // analytic leaves with a count input (copies share it)
  std::uint32_t answer_id_ = 0;         // name_request
};

}  // namespace costdsl::detail
