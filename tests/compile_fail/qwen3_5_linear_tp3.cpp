// A Gated DeltaNet block whose 16 k heads tp 3 does not divide must not compile (a rank runs
// whole heads); tp 4 (the control) does. The block reads the frame's GdnForm of the model.
#include "costdsl/archs/qwen3_5.hpp"
using namespace costdsl;
#ifdef COSTDSL_CONTROL
constexpr archs::GdnForm cfg = archs::GdnForm::of(deploy(archs::qwen3_5_397b_a17b, {.tp = 4, .ep = 4}));
#else
constexpr archs::GdnForm cfg = archs::GdnForm::of(deploy(archs::qwen3_5_397b_a17b, {.tp = 3, .ep = 3}));
#endif
int main() { return worklets::GdnBlockTp<Fixed<cfg>>(Fixed<cfg>{}).resolved().qkvz_n.value() > 0 ? 0 : 1; }
