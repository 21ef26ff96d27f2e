#pragma once
// COSTDSL_KERNEL_COMPILED_ONCE(Kind): each shipped kernel kind says, after its definition,
// that Kernel<Kind>'s build-time code (its constructor and table binding, kernel.hpp) is
// compiled once in libcostdsl-compiled (src/kernels.cpp) rather than in every translation
// unit that builds a tree. Only in separate-compilation mode (costdsl-compiled.pc, the
// costdsl-compiled meson dependency): header-only users have no library to take it from.
#if defined(COSTDSL_SEPARATE_COMPILATION)
#include "costdsl/kernel.hpp"
#define COSTDSL_KERNEL_COMPILED_ONCE(Kind) extern template class costdsl::Kernel<costdsl::kernels::Kind>
#else
#define COSTDSL_KERNEL_COMPILED_ONCE(Kind) static_assert(true, "header-only: Kernel<" #Kind "> is instantiated here")
#endif
