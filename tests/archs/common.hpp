#pragma once
// Shared by the arch tests: a roofline H200 timing and one whole-model batch.
#include <doctest/doctest.h>

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

#include <boost/mp11/algorithm.hpp>

#include "costdsl/costdsl.hpp"
#include "costdsl/kernels/all.hpp"

namespace arch_test {

inline const costdsl::Timing& roofline_h200() {
  static const costdsl::Timing t = costdsl::load_timing("h200", costdsl::TimingMode::roofline);
  return t;
}

struct Batch {
  std::vector<costdsl::ops::PrefillChunk> prefill;
  std::vector<std::uint32_t> decode;
  costdsl::ops::AttentionBatch it() const { return {prefill, decode}; }
};

// Every slot of a manifest carries its kernel kind's declared family (custom slots too).
inline void check_slot_families(const costdsl::Manifest& m) {
  std::map<std::string, costdsl::Family> declared;
  boost::mp11::mp_for_each<costdsl::kernels::All>(
      [&](auto k) { declared[std::string(decltype(k)::kind)] = decltype(k)::family; });
  for (const costdsl::SlotDescription& s : m.slots) {
    INFO(s.name);
    REQUIRE(declared.count(s.kind) == 1);
    CHECK(s.family == declared.at(s.kind));
  }
}

// A slot's identity without its formulas (kind, config values, backends): what the
// KV-parallel laws compare between a grain's tree and its tp twin, whose dims are
// spelled differently (num_qo_heads/(hp*tp)*head_dim against num_qo_heads/tp*head_dim).
inline std::string slot_identity(const costdsl::SlotDescription& s) {
  std::string out = s.name + " " + s.kind;
  for (const costdsl::ConfigField& f : s.config) {
    out += " " + f.name + "=";
    if (const costdsl::Dim* d = std::get_if<costdsl::Dim>(&f.value)) {
      out += std::to_string(d->value);
    } else if (const std::string* str = std::get_if<std::string>(&f.value)) {
      out += *str;
    } else if (const double* x = std::get_if<double>(&f.value)) {
      out += std::to_string(*x);
    }
  }
  for (const std::string& b : s.backends) out += " " + b;
  return out;
}

// The KV-parallel laws' batches: mixed, ragged, chunked prefill, long-context decode, empty.
inline const std::vector<Batch>& kv_parallel_batches() {
  static const std::vector<Batch> b{Batch{{{0, 4096}}, std::vector<std::uint32_t>(64, 2048)},
                                    Batch{{}, {1, 2, 3, 33, 100, 131072}}, Batch{{{1024, 128}, {0, 512}}, {4096}},
                                    Batch{{}, std::vector<std::uint32_t>(16, 131072)}, Batch{}};
  return b;
}

// The index of the slot at `path` in Tree (a test failure naming it when there is none).
template <class Tree>
std::size_t slot_at(std::string_view path) {
  for (std::size_t i = 0; i < costdsl::n_slots<Tree>; ++i)
    if (costdsl::slot_paths<Tree>[i] == path) return i;
  FAIL("no slot " << path);
  return 0;
}

// Two configs of one reflected type agree field by field (a preset against its shipped
// config.json).
template <class Config>
bool same_fields(const Config& a, const Config& b) {
  bool all = true;
  costdsl::for_each_field(a, [&](std::string_view name, const auto& x) {
    costdsl::for_each_field(b, [&](std::string_view other, const auto& y) {
      if constexpr (std::is_same_v<decltype(x), decltype(y)>)
        if (name == other && !(x == y)) all = false;
    });
  });
  return all;
}

}  // namespace arch_test
