#pragma once
// The per-query launch of DeepSeek sparse attention's kinds (dsa_indexer_logits, dsa_topk,
// dsa_sparse_mla): `batch` sequences, each appending `append` queries after `prefix` cached
// tokens (a decode: append 1, prefix its KV length − 1). It is the measured tables' own key
// (aiconfigurator's glm5_* tables: batch_size, step = prefix, isl = append), and the
// {batch, prefix, append} brace order ops::ChunkedPrefill builds a uniform launch in.
// Causal: the i-th appended query (1-based) sees prefix + i keys.
#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "costdsl/detail/str.hpp"
#include "costdsl/error.hpp"
#include "costdsl/kernel_def.hpp"
#include "costdsl/reflect.hpp"

namespace costdsl::kernels::detail {

struct DsaLaunch {
  COSTDSL_FIELDS((std::uint64_t, batch), (std::uint64_t, prefix), (std::uint64_t, append));
};

// Queries of the launch.
inline double dsa_queries(const DsaLaunch& in) { return double(in.batch) * double(in.append); }
// Σ over the queries of the keys each sees: append·prefix + append·(append + 1)/2 per sequence.
inline double dsa_keys(const DsaLaunch& in) {
  const double a = double(in.append);
  return double(in.batch) * (a * double(in.prefix) + a * (a + 1) / 2);
}
// Where a launch sits on the (queries, keys) grid of the two indexer kinds, and the decode
// launch a grid cell stands for (its keys spread over its queries).
inline std::array<double, 2> dsa_query_key_point(const DsaLaunch& in) { return {dsa_queries(in), dsa_keys(in)}; }
inline DsaLaunch dsa_decode_at(const std::array<double, 2>& at) {
  const std::uint64_t q = costdsl::detail::count_at(at[0]);
  return {q, q == 0 ? 0 : costdsl::detail::count_at(std::max(at[1] / double(q) - 1, 0.0)), 1};
}
// The keys a sequence holds after the launch (each streamed once per query tile).
inline double dsa_context(const DsaLaunch& in) { return double(in.prefix) + double(in.append); }

// The grid the profiler measures: decode cells (append 1) and prefill cells (prefix 0), the
// aiconfigurator collector's batch × isl × step shape family.
inline std::vector<DsaLaunch> dsa_sweep() {
  std::vector<DsaLaunch> grid;
  for (std::uint64_t b : {1, 4, 16, 64, 256})
    for (std::uint64_t kv : {1024, 2048, 4096, 8192, 16384, 32768, 131072}) grid.push_back({b, kv - 1, 1});
  for (std::uint64_t b : {1, 2, 4, 8})
    for (std::uint64_t isl : {512, 1024, 2048, 4096, 8192, 16384}) grid.push_back({b, 0, isl});
  return grid;
}

// Throws a ConfigError naming the kind, the field, its value and the rule.
inline void dsa_check(std::string_view kind, std::string_view field, std::uint64_t v, std::uint64_t max) {
  if (v == 0 || v > max) throw ConfigError(costdsl::detail::str(kind, ": ", field, " ", v, " must be in 1..", max));
}

}  // namespace costdsl::kernels::detail
