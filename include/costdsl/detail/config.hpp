#pragma once
// Header-only by default; separately compiled on request, as fmt and Asio offer it.
//
// The loading and reporting code (profile CSV parse, grid fit, GPU catalog, roofline
// parameters, config.json, manifest JSON, describe) is defined in costdsl/impl/*.ipp.
// Header-only, each loading header includes its .ipp and the definitions are inline:
// a one-TU user links nothing. With COSTDSL_SEPARATE_COMPILATION defined (the
// `costdsl-compiled` pkg-config entry and meson's costdsl_compiled_dep do it), the
// headers only declare them and libcostdsl-compiled.a (src/costdsl.cpp) defines them
// once, so a project with many translation units does not compile them in each.
//
// The evaluation headers (core, kernels, ops, worklets, archs) never reach this code
// in either mode: a kernel binds its measured tables through the ProfileSource
// interface of timing.hpp.
#if defined(COSTDSL_SEPARATE_COMPILATION)
#define COSTDSL_DECL
#else
#define COSTDSL_DECL inline
#endif
