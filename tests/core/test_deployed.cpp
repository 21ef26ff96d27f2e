// Shape ⊕ Parallelism ⊕ Quantization (deployed.hpp, with.hpp): a config is three reflected
// parts that read as one, on a shape of its own (no frame), so the laws are the core's.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "costdsl/deployed.hpp"
#include "costdsl/form.hpp"
#include "costdsl/load_hf_config.hpp"
#include "costdsl/serve/parallel.hpp"
#include "costdsl/with.hpp"

using namespace costdsl;

namespace {

struct PlainLayer {};
// A family whose published checkpoints ship quantized experts (as gpt-oss's).
struct QuantizedLayer {
  static constexpr Quantization published_quantization{
      .gemm_dtype = Dtype::bf16, .expert_dtype = Dtype::mxfp4, .kv_dtype = Dtype::fp8};
};

template <class Layer>
struct TinyShape {
  using layer = Layer;
  COSTDSL_FIELDS((std::uint32_t, hidden), (std::uint32_t, num_layers), (Dtype, dtype));
  static TinyShape from_hf(const HfConfig& hf) {
    return {hf.dim("hidden_size"), hf.dim("num_hidden_layers"), hf.dtype()};
  }
};

constexpr TinyShape<PlainLayer> tiny{.hidden = 1024, .num_layers = 4, .dtype = Dtype::fp16};

std::vector<std::string> names(const auto& s) {
  std::vector<std::string> out;
  for_each_field(s, [&](std::string_view n, const auto&) { out.emplace_back(n); });
  return out;
}

}  // namespace

static_assert(ModelShape<TinyShape<PlainLayer>>);
static_assert(!ModelShape<Deployed<TinyShape<PlainLayer>>>);  // a deployed model is no shape
static_assert(std::is_same_v<serve::Parallel, Parallelism>);  // the planner enumerates what archs take
// The static form reads every part's fields by name.
static_assert(dim<"tp">(Fixed<deploy(tiny, {.tp = 4, .ep = 2})>{}).value() == 4);
static_assert(dim<"ep">(Fixed<deploy(tiny, {.tp = 4, .ep = 2})>{}).value() == 2);
static_assert(dim<"num_layers">(Fixed<deploy(tiny)>{}).value() == 4);
// with<> is a constant expression that changes one field and nothing else.
static_assert(with<"num_layers">(deploy(tiny, {.tp = 2}), 8u).num_layers == 8);
static_assert(with<"num_layers">(deploy(tiny, {.tp = 2}), 8u).tp == 2);
static_assert(with<"hop_b">(deploy(tiny), true).hop_b);

TEST_CASE("a deployed config visits its shape's fields, then its parallelism's, then its quantization's") {
  const auto c = deploy(tiny, {.tp = 2});
  CHECK(names(c) == std::vector<std::string>{"hidden", "num_layers", "dtype", "tp", "ep", "hp", "moe_tp", "kv_replicate",
                                             "hop_b", "gemm_dtype", "expert_dtype", "kv_dtype"});
  CHECK(c.shape().hidden == 1024);
  CHECK(c.parallelism() == Parallelism{.tp = 2});
}

TEST_CASE("deploy stores a shape as its family publishes it unless told otherwise") {
  CHECK(deploy(tiny).quantization() == Quantization::uniform(Dtype::fp16));  // the checkpoint's dtype throughout
  constexpr TinyShape<QuantizedLayer> quantized{.hidden = 1024, .num_layers = 4, .dtype = Dtype::bf16};
  CHECK(deploy(quantized).quantization() == QuantizedLayer::published_quantization);
  const Quantization fp8 = Quantization::uniform(Dtype::fp8);
  CHECK(deploy(quantized, {}, fp8).quantization() == fp8);
}

TEST_CASE("deploying a deployed model again changes how it runs, not what it is or how it is stored") {
  const auto c = deploy(tiny, {.tp = 2, .hop_b = true}, Quantization::uniform(Dtype::fp8));
  const auto d = deploy(c, {.tp = 8, .ep = 8});
  CHECK(d.parallelism() == Parallelism{.tp = 8, .ep = 8});  // hop_b not carried: a new parallelism whole
  CHECK(d.quantization() == c.quantization());
  CHECK(d.hidden == c.hidden);
  CHECK(d.num_layers == c.num_layers);
}

TEST_CASE("from_hf reads the shape and the checkpoint's quantization and takes the parallelism as given") {
  const HfConfig hf = parse_hf_config(R"({"hidden_size": 2048, "num_hidden_layers": 6, "torch_dtype": "bfloat16",
      "quantization_config": {"quant_method": "fp8"}})",
                                      "tiny.json");
  const auto c = Deployed<TinyShape<PlainLayer>>::from_hf(hf, {.tp = 4, .hp = 2});
  CHECK(c.hidden == 2048);
  CHECK(c.num_layers == 6);
  CHECK(c.dtype == Dtype::bf16);
  CHECK(c.gemm_dtype == Dtype::fp8);
  CHECK(c.expert_dtype == Dtype::fp8);
  CHECK(c.kv_dtype == Dtype::bf16);
  CHECK(c.parallelism() == Parallelism{.tp = 4, .hp = 2});
}
