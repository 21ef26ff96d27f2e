#pragma once
// COSTDSL_INLINE: forced inlining where bench/ shows it pays (the fold over the tree,
// the node algebra, the 1D lookup: as calls they spilled the leaf's live values,
// bench/README.md), and only in optimised builds, as fmt's FMT_INLINE: at -O0 it
// would only slow the compile down and hide the frames a debugger wants.
#if defined(NDEBUG) && (defined(__GNUC__) || defined(__clang__))
#define COSTDSL_INLINE [[gnu::always_inline]] inline
#else
#define COSTDSL_INLINE inline
#endif
