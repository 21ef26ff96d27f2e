// Laws every kernel kind of the catalogue obeys.
#include <doctest/doctest.h>

#include <boost/mp11/algorithm.hpp>
#include <set>

#include "costdsl/costdsl.hpp"
#include "costdsl/kernel.hpp"
#include "costdsl/kernels/all.hpp"

using namespace costdsl;

TEST_CASE("every kind is a KernelDef whose bound form is a SlotKernel, with a unique kind string") {
  std::set<std::string_view> kinds;
  boost::mp11::mp_for_each<kernels::All>([&](auto k) {
    using K = decltype(k);
    static_assert(KernelDef<K>);
    static_assert(SlotKernel<Kernel<K>>);
    CHECK_MESSAGE(kinds.insert(K::kind).second, "duplicate kind " << K::kind);
    // Names that would collide with the fixed profile-table columns or the leaf's own fields.
    for (const auto& f : field_names<typename K::Config>()) {
      CHECK(f != "gpu");
      CHECK(f != "backend");
    }
    for (const auto& f : field_names<typename K::Input>()) CHECK(f != "time_ms");
    CHECK_FALSE(K::default_backends().empty());
  });
  CHECK(kinds.size() == 29);
}

TEST_CASE("the shared token axis has the 63 points of the reference") {
  CHECK(token_axis.size() == 63);
  CHECK(token_axis[0] == 32);
  CHECK(token_axis[3] == 256);
  CHECK(token_axis[34] == 4352);
  CHECK(token_axis[62] == 65536);
  for (std::size_t i = 1; i < token_axis.size(); ++i) CHECK(token_axis[i] > token_axis[i - 1]);
  const auto m = gemm_m_axis();
  CHECK(m.front() == 1);
  CHECK(m[15] == 16);
  CHECK(m.size() == 16 + 63);
}
