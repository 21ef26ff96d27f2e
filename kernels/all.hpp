#pragma once
// The kernel catalogue: every L1 kind, for the CLI, the profiler and tests.
#include <boost/mp11/list.hpp>

#include "costdsl/kernels/gemm.hpp"

namespace costdsl::kernels {

using All = boost::mp11::mp_list<Gemm>;

}  // namespace costdsl::kernels
