#pragma once
// Shared by the arch tests: a roofline H200 timing and one whole-model batch.
#include <doctest/doctest.h>

#include <cstdint>
#include <map>
#include <string>
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

}  // namespace arch_test
