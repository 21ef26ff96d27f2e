#pragma once
// Deployed<Shape>: a model as one worker runs it. What the model is (its Shape: dims, layer
// counts, the checkpoint's activation dtype), how it is split (Parallelism) and how its
// weights and KV cache are stored (Quantization) are three reflected parts, set apart and
// put together here; every frame's config is one (archs/frames/*.hpp):
//
//   inline constexpr Llama3Shape llama3_70b{.hidden = 8192, ...};      // what it is
//   Llama3<Fixed<deploy(llama3_70b, {.tp = 8})>> arch(timing);        // static: tp 16 fails to compile
//   Llama3<Llama3Config> arch(Llama3Config::from_hf(hf, {.tp = 8}));   // run time: a ConfigError
//
// Each part's fields read as the config's own (c.tp, c.hidden, c.kv_dtype; dim<"tp">), so the
// worklets see one flat config. A Shape names its Layer (`layer`) and reads itself from a
// config.json (`Shape::from_hf(hf)`); the quantization comes from the same file
// (HfConfig::quantization: its quantization_config, or --quant / --kv-dtype).
#include <concepts>
#include <type_traits>

#include "costdsl/dtype.hpp"
#include "costdsl/fields.hpp"
#include "costdsl/hf_config.hpp"
#include "costdsl/parallelism.hpp"
#include "costdsl/quantization.hpp"

namespace costdsl {

// What a model is, apart from how it runs: a reflected struct with its family's Layer and
// the checkpoint's activation dtype, read from a config.json.
template <class S>
concept ModelShape = Reflected<S> && requires(const S& s, const HfConfig& hf) {
  typename S::layer;
  { s.dtype } -> std::convertible_to<Dtype>;
  { S::from_hf(hf) } -> std::same_as<S>;
} && !std::derived_from<S, Parallelism>;

template <ModelShape Shape>
struct Deployed : Shape, Parallelism, Quantization {
  COSTDSL_FIELDS_OF(Shape, Parallelism, Quantization);

  // The config.json's shape and quantization, run with `p`.
  static Deployed from_hf(const HfConfig& hf, const Parallelism& p = {}) {
    return {Shape::from_hf(hf), p, hf.quantization()};
  }

  constexpr const Shape& shape() const noexcept { return *this; }
  constexpr const Parallelism& parallelism() const noexcept { return *this; }
  constexpr const Quantization& quantization() const noexcept { return *this; }
};

// How a family's published checkpoints store their numbers, for a shape written out in code
// (a config.json says it itself): the Layer's published_quantization where it has one
// (gpt-oss ships MXFP4 experts), else every component in the activations' dtype.
template <ModelShape Shape>
constexpr Quantization published_quantization(const Shape& shape) {
  if constexpr (requires { Shape::layer::published_quantization; }) {
    return Shape::layer::published_quantization;
  } else {
    return Quantization::uniform(shape.dtype);
  }
}

// A shape run with `p`, stored as published unless `q` says otherwise.
template <ModelShape Shape>
constexpr Deployed<Shape> deploy(const Shape& shape, const Parallelism& p = {}) {
  return {shape, p, published_quantization(shape)};
}
template <ModelShape Shape>
constexpr Deployed<Shape> deploy(const Shape& shape, const Parallelism& p, const Quantization& q) {
  return {shape, p, q};
}
// A deployed model run otherwise: its shape and quantization with `p`.
template <ModelShape Shape>
constexpr Deployed<Shape> deploy(const Deployed<Shape>& model, const Parallelism& p) {
  return {model.shape(), p, model.quantization()};
}

}  // namespace costdsl
