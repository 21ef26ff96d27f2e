// gpt-oss-20b declared statically with 23 layers: its repeated unit is the (sliding-window,
// full attention) layer pair, so an odd layer count must not compile; the 24-layer
// control (the published model) does.
#include "costdsl/archs/gpt_oss.hpp"
#include "costdsl/with.hpp"
using namespace costdsl::archs;
#ifdef COSTDSL_CONTROL
using Arch = GptOss<costdsl::Fixed<costdsl::with<"num_layers">(deploy(gpt_oss_20b), 24u)>>;
#else
using Arch = GptOss<costdsl::Fixed<costdsl::with<"num_layers">(deploy(gpt_oss_20b), 23u)>>;
#endif
int main() { return Arch().resolved().dp > 0 ? 0 : 1; }
