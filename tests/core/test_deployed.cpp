// Shape ⊕ Parallelism ⊕ Quantization (deployed.hpp, with.hpp) and the config.json table a
// shape reads itself through (hf_keys.hpp), on shapes of their own (no frame): the laws are
// the core's.
#include <doctest/doctest.h>

#include <array>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "costdsl/deployed.hpp"
#include "costdsl/form.hpp"
#include "costdsl/hf_keys.hpp"
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
                                             "hop_b", "gemm_dtype", "expert_dtype", "kv_dtype", "fp8_from_norm",
                                             "fp8_from_attention", "fp8_from_activation",
                                             "expert_fp8_activations"});
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

namespace {
// A shape read through a config.json table (hf_keys.hpp), with a family's row of its own.
struct WindowedLayer {
  static constexpr std::array hf_keys{hf_key("window", "sliding_window")};
};
template <class Layer>
struct TableShape {
  using layer = Layer;
  COSTDSL_FIELDS((std::uint32_t, hidden), (std::uint32_t, heads), (std::uint32_t, kv_heads), (std::uint32_t, head_dim),
                 (std::uint32_t, window), (std::uint32_t, derived), (Dtype, dtype));
  static constexpr std::array hf_keys{hf_key("hidden", "hidden_size"), hf_key("heads", "num_attention_heads"),
                                      hf_key("kv_heads", "num_key_value_heads").or_field("heads"),
                                      hf_key("head_dim", "head_dim").or_ratio("hidden", "heads"),
                                      not_in_family("window"), computed("derived")};
  static TableShape from_hf(const HfConfig& hf) { return read_hf_shape<TableShape>(hf); }
};
}  // namespace

static_assert(hf_table_fits<TableShape<PlainLayer>>(TableShape<PlainLayer>::hf_keys, layer_hf_keys<PlainLayer>()));
// A row naming no field, or a field with no row, does not fit (frames static_assert it).
static_assert(!hf_table_fits<TableShape<PlainLayer>>(TableShape<PlainLayer>::hf_keys,
                                                     std::array{hf_key("head_dims", "head_dim")}));
static_assert(!hf_table_fits<TableShape<PlainLayer>>(std::array{hf_key("hidden", "hidden_size")}, std::array<HfKey, 0>{}));
// A default may only name a field read before it.
static_assert(!hf_table_fits<TableShape<PlainLayer>>(
    TableShape<PlainLayer>::hf_keys, std::array{hf_key("heads", "num_attention_heads").or_field("kv_heads")}));

TEST_CASE("a config.json table reads each field by its key, its default where the key is absent") {
  const auto read = [](const std::string& json) {
    return TableShape<PlainLayer>::from_hf(parse_hf_config(json, "t.json"));
  };
  const auto t = read(R"({"hidden_size": 4096, "num_attention_heads": 32, "sliding_window": 128})");
  CHECK(t.hidden == 4096);
  CHECK(t.kv_heads == 32);   // or_field: the heads
  CHECK(t.head_dim == 128);  // or_ratio: hidden / heads
  CHECK(t.window == 0);      // not in this family: not read
  CHECK(t.derived == 0);     // computed: left to the family
  CHECK(t.dtype == Dtype::bf16);
  const auto given = read(R"({"hidden_size": 4096, "num_attention_heads": 32, "num_key_value_heads": 8,
      "head_dim": 96, "torch_dtype": "float16"})");
  CHECK(given.kv_heads == 8);
  CHECK(given.head_dim == 96);
  CHECK(given.dtype == Dtype::fp16);
  CHECK_THROWS_WITH_AS(read(R"({"hidden_size": 4000, "num_attention_heads": 48})"),
                       "t.json: num_attention_heads 48 does not divide hidden_size 4000 and there is no head_dim",
                       DataError);
  CHECK_THROWS_WITH_AS(read(R"({"num_attention_heads": 48})"), "t.json: missing key 'hidden_size'", DataError);
}

TEST_CASE("a family's own row replaces the frame's") {
  const auto t = TableShape<WindowedLayer>::from_hf(
      parse_hf_config(R"({"hidden_size": 4096, "num_attention_heads": 32, "sliding_window": 128})", "w.json"));
  CHECK(t.window == 128);
  CHECK_THROWS_WITH_AS(
      TableShape<WindowedLayer>::from_hf(parse_hf_config(R"({"hidden_size": 4096, "num_attention_heads": 32})", "w.json")),
      "w.json: missing key 'sliding_window'", DataError);
}
