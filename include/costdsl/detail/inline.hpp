#pragma once
// Forced inlining, in two strengths.
//
// COSTDSL_ALWAYS_INLINE: the node algebra (each node's accumulator and the Metrics rules
// it applies) and the 1-D lookup, a handful of adds or compares each, called once per child
// or leaf. Forced in release builds (NDEBUG) and, asserts kept, where COSTDSL_INLINE_ALGEBRA
// is defined (the project's meson.build: its CLI, libcostdsl-compiled and Python module),
// at -O1 and above. As calls they were a tenth of `validate --deployments` in the CLI
// (docs/perf-history.md: 7-17% less CPU forced, the report byte for byte the same); forced
// in every -O2 TU they cost a TU of the compile-time budget 4-8% (qwen3_30b_tp1_ep8), so a
// user's -O2 build without NDEBUG is left as it was.
//
// COSTDSL_INLINE: the folds over the tree and the input builders. Forcing them is what
// bench/ measures (the iteration benches build with NDEBUG), but it grows the compile
// (DeepSeek-V3's TU at -O2 by a quarter, the CLI's build 293 → 487 CPU s), so only
// release builds (NDEBUG) pay it. A debug build (-O0, no NDEBUG) forces neither: it
// would only slow the compile down and hide the frames a debugger wants.
#if defined(__GNUC__) || defined(__clang__)
#if defined(__OPTIMIZE__) && (defined(NDEBUG) || defined(COSTDSL_INLINE_ALGEBRA))
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
