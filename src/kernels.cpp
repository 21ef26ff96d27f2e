// Kernel<K> for every shipped kind, instantiated once: its constructor binds a leaf to its
// profile tables (build time), so a translation unit that builds a tree in separate-compilation
// mode takes it from here (kernels/*.hpp declare these extern). eval() is a member template
// and stays with the caller, inlined into its fold.
#include "costdsl/kernel.hpp"
#include "costdsl/kernels/all.hpp"

namespace costdsl {
template class Kernel<kernels::AllGather>;
template class Kernel<kernels::AllReduce>;
template class Kernel<kernels::AllToAll>;
template class Kernel<kernels::AttnDecode>;
template class Kernel<kernels::AttnPrefill>;
template class Kernel<kernels::DsaIndexerLogits>;
template class Kernel<kernels::DsaSparseMla>;
template class Kernel<kernels::DsaTopk>;
template class Kernel<kernels::Embedding>;
template class Kernel<kernels::FusedAddRmsNorm>;
template class Kernel<kernels::FusedMoe>;
template class Kernel<kernels::GdnConv1dDecode>;
template class Kernel<kernels::GdnConv1dPrefill>;
template class Kernel<kernels::GdnDecode>;
template class Kernel<kernels::GdnPrefill>;
template class Kernel<kernels::Gemm>;
template class Kernel<kernels::GroupedGemm>;
template class Kernel<kernels::KvCacheAppend>;
template class Kernel<kernels::MergeAttnStates>;
template class Kernel<kernels::MlaDecode>;
template class Kernel<kernels::MlaPrefill>;
template class Kernel<kernels::MoeRouter>;
template class Kernel<kernels::MoeSum>;
template class Kernel<kernels::P2p>;
template class Kernel<kernels::ReduceScatter>;
template class Kernel<kernels::RmsNorm>;
template class Kernel<kernels::Rope>;
template class Kernel<kernels::Sampler>;
template class Kernel<kernels::SiluAndMul>;

// A new kind needs its line here: its header's COSTDSL_KERNEL_COMPILED_ONCE makes every caller
// in separate compilation expect Kernel<K> from this file (a missing line fails at link time).
static_assert(boost::mp11::mp_size<kernels::All>::value == 29,
              "src/kernels.cpp: instantiate Kernel<K> for every kind in kernels::All");

}  // namespace costdsl
