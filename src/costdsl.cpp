// libcostdsl-compiled: the loading and reporting code defined once, for projects that compile
// with COSTDSL_SEPARATE_COMPILATION (see include/costdsl/detail/config.hpp).
#ifndef COSTDSL_SEPARATE_COMPILATION
#error "build libcostdsl-compiled with COSTDSL_SEPARATE_COMPILATION defined (meson does)"
#endif

#include "costdsl/describe.hpp"
#include "costdsl/gpu_catalog.hpp"
#include "costdsl/load_hf_config.hpp"
#include "costdsl/load_roofline_params.hpp"
#include "costdsl/load_timing.hpp"
#include "costdsl/manifest_json.hpp"
#include "costdsl/profile_csv.hpp"
#include "costdsl/profile_db.hpp"

#include "costdsl/impl/describe.ipp"
#include "costdsl/impl/gpu_catalog.ipp"
#include "costdsl/impl/load_hf_config.ipp"
#include "costdsl/impl/load_roofline_params.ipp"
#include "costdsl/impl/load_timing.ipp"
#include "costdsl/impl/manifest_json.ipp"
#include "costdsl/impl/profile_csv.ipp"
#include "costdsl/impl/profile_db.ipp"
