#pragma once
// A profile DB for benchmarks when no measured tables exist: for every leaf of a
// tree, the kind's sweep grid timed by the roofline and written in the loader's
// CSV format, so that leaves evaluate through the interpolating caches exactly
// as measured ones would. The numbers are the roofline's; only the code path is
// the measured one. (Real tables come from profiler/.)
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "costdsl/costdsl.hpp"
#include "costdsl/kernel.hpp"

namespace costdsl::bench {

namespace detail {
struct Table {
  ProfileSchema schema;
  std::set<std::vector<std::string>> configs_done;
  std::string text;
};

template <class LeafKernel>
void add_leaf(const LeafKernel& k, const Roofline& rf, std::map<std::string, Table>& tables) {
  if constexpr (requires { k.kernel; }) {
    add_leaf(k.kernel, rf, tables);  // adaptors (chunked prefill, gated slots) wrap a Kernel<K>
  } else if constexpr (requires { typename LeafKernel::Def; }) {
    using K = typename LeafKernel::Def;
    Table& t = tables[std::string(K::kind)];
    if (t.schema.kind.empty()) {
      t.schema = profile_schema<K>();
      std::vector<std::string> header;
      for (const auto& c : t.schema.config) header.push_back(c.name);
      for (const auto& i : t.schema.inputs) header.push_back(i);
      t.text = "# synthetic: roofline times on the sweep grid (bench/synthetic_profiles.hpp)\n" +
               fmt::format("{},backend,time_ms\n", fmt::join(header, ","));
    }
    const auto key = profile_key(k.config());
    if (!t.configs_done.insert(key).second) return;
    std::set<std::array<double, K::axes.size()>> seen;
    for (const auto& in : K::sweep(k.config())) {
      const auto p = K::point(k.config(), in);
      const Metrics m = K::roofline(rf, k.config(), in);
      if (!(m.time_s > 0) || !seen.insert(p).second) continue;
      t.text += fmt::format("{},{},{},{:.9g}\n", fmt::join(key, ","), fmt::join(p, ","), k.backends().front(),
                            m.time_s * 1e3);
    }
  }
}
}  // namespace detail

// Writes DIR/<gpu>/<kind>.csv for every leaf kind of `tree`; returns DIR.
template <CostNode Tree>
std::filesystem::path write_synthetic_profiles(const Tree& tree, const Timing& roofline_timing,
                                               const std::filesystem::path& dir) {
  std::map<std::string, detail::Table> tables;
  for_each_leaf(tree, [&](std::string_view, const auto& k) { detail::add_leaf(k, *roofline_timing.roofline(), tables); });
  const auto gpu_dir = dir / roofline_timing.gpu().name;
  std::filesystem::create_directories(gpu_dir);
  for (const auto& [kind, t] : tables) std::ofstream(gpu_dir / (kind + ".csv")) << t.text;
  return dir;
}

}  // namespace costdsl::bench
