#pragma once
// Forced inlining, in two strengths.
//
// COSTDSL_ALWAYS_INLINE: the node algebra (each node's accumulator and the Metrics rules
// it applies) and the 1-D lookup. Each is a handful of adds or compares, called once per
// child or leaf: inlining them shrinks the code, so it is forced in every optimised
// build (__OPTIMIZE__), NDEBUG or not. The project's own binaries keep their asserts
// (b_ndebug=false): keyed on NDEBUG, these stayed calls in the CLI and in
// libcostdsl-compiled, and accumulate_sum alone was a tenth of `validate --deployments`
// (docs/perf-history.md: 7-17% less CPU with them forced, the report byte for byte the same).
//
// COSTDSL_INLINE: the folds over the tree and the input builders. Forcing them is what
// bench/ measures (the iteration benches build with NDEBUG), but it grows the compile
// (DeepSeek-V3's TU at -O2 by a quarter, the CLI's build 293 → 487 CPU s), so only
// release builds (NDEBUG) pay it. A debug build (-O0, no NDEBUG) forces neither: it
// would only slow the compile down and hide the frames a debugger wants.
#if defined(__GNUC__) || defined(__clang__)
#if defined(__OPTIMIZE__)
#define COSTDSL_ALWAYS_INLINE [[gnu::always_inline]] inline
#else
#define COSTDSL_ALWAYS_INLINE inline
#endif
#if defined(NDEBUG)
#define COSTDSL_INLINE [[gnu::always_inline]] inline
#else
#define COSTDSL_INLINE inline
#endif
#else
#define COSTDSL_ALWAYS_INLINE inline
#define COSTDSL_INLINE inline
#endif
