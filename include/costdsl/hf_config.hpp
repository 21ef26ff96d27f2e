#pragma once
// A HuggingFace config.json as the archs read it: its top-level keys with their
// values, checked on access. Every error names the file, the key, the value and the
// rule. Reading a file: load_hf_config.hpp (the archs never parse JSON themselves).
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "costdsl/dtype.hpp"
#include "costdsl/error.hpp"
#include "costdsl/quantization.hpp"

namespace costdsl {

class HfConfig {
 public:
  // One value as parsed. Integers keep their sign class: an integer above 2^63-1 is
  // unsigned, so reading it as int64 would wrap to a negative and name the wrong value.
  struct Value {
    enum class Type : std::uint8_t { null, boolean, integer, unsigned_integer, number, string, array, object };
    Type type = Type::null;
    std::int64_t integer = 0;
    std::uint64_t unsigned_integer = 0;
    double number = 0;
    std::string text;          // a string's value
    std::vector<Value> items;  // an array's elements
    std::string json;          // the value as JSON text, for messages
  };

  HfConfig(std::map<std::string, Value, std::less<>> entries, std::string file)
      : entries_(std::move(entries)), file_(std::move(file)) {}

  const std::string& file() const noexcept { return file_; }
  bool has(std::string_view key) const {
    const Value* v = find(key);
    return v != nullptr && v->type != Value::Type::null;
  }
  const Value* find(std::string_view key) const {
    auto it = entries_.find(key);
    return it == entries_.end() ? nullptr : &it->second;
  }

  // A positive integer that fits in 32 bits (dims, counts).
  std::uint32_t dim(std::string_view key, std::optional<std::uint32_t> fallback = std::nullopt) const {
    const std::string k(key);
    if (!has(key)) {
      if (fallback) return *fallback;
      throw DataError(file_ + ": missing key '" + k + "'");
    }
    const Value& v = *find(key);
    if (v.type == Value::Type::unsigned_integer) {
      if (v.unsigned_integer == 0) throw DataError(file_ + ": '" + k + "' is 0; it must be at least 1");
      if (v.unsigned_integer > std::numeric_limits<std::uint32_t>::max())
        throw DataError(file_ + ": '" + k + "' is " + std::to_string(v.unsigned_integer) + "; it must fit in 32 bits");
      return static_cast<std::uint32_t>(v.unsigned_integer);
    }
    if (v.type != Value::Type::integer) throw DataError(file_ + ": '" + k + "' must be an integer, got " + v.json);
    if (v.integer <= 0) throw DataError(file_ + ": '" + k + "' is " + std::to_string(v.integer) + "; it must be at least 1");
    if (v.integer > std::numeric_limits<std::uint32_t>::max())
      throw DataError(file_ + ": '" + k + "' is " + std::to_string(v.integer) + "; it must fit in 32 bits");
    return static_cast<std::uint32_t>(v.integer);
  }

  // The weights' dtype from torch_dtype (bf16 when absent).
  Dtype dtype(std::string_view key = "torch_dtype") const {
    if (!has(key)) return Dtype::bf16;
    try {
      return parse_dtype(text(key), key);
    } catch (const InputError& e) {
      throw DataError(file_ + ": " + e.what());
    }
  }

  // The deployment's quantization: the checkpoint's own, then any component the user
  // overrode (override_quantization). The checkpoint's is read from HF's
  // quantization_config (quant_method fp8, with weight_block_size for block scales;
  // mxfp4 for the experts) or an NVIDIA ModelOpt hf_quant_config.json found beside the
  // file (quant_algo FP8 / NVFP4 / FP8_BLOCK_SCALES, kv_cache_quant_algo FP8). The archs
  // read it where they read the shapes, so every parallelism plan tries sees one choice.
  Quantization quantization() const {
    const Dtype act = dtype();
    Quantization q{act, act, act};
    // Weights given in both places (--quant, a deployment's row) make the checkpoint's own
    // format moot: a quant_method costdsl does not read (an int4 original of an NVFP4 build)
    // is then no error.
    const bool weights_chosen = quant_choice_.gemm_dtype && quant_choice_.expert_dtype;
    if (has("quantization_config.quant_method") && !weights_chosen) {
      const std::string m = text("quantization_config.quant_method");
      if (m == "fp8") {
        q.gemm_dtype = q.expert_dtype = has("quantization_config.weight_block_size") ? Dtype::fp8_block : Dtype::fp8;
      } else if (m == "mxfp4") {
        q.expert_dtype = Dtype::mxfp4;
      } else if (m == "modelopt") {
        modelopt(q, "quantization_config.");
      } else if (m == "compressed-tensors") {
        compressed_tensors(q);
      } else {
        throw DataError(file_ + ": quantization_config.quant_method '" + m +
                        "' is not modelled (fp8, fp8 with weight_block_size, mxfp4, modelopt, compressed-tensors "
                        "int4 weight-only); override it with --quant");
      }
    }
    if (has("hf_quant_config.quant_algo")) modelopt(q, "hf_quant_config.");
    const Quantization chosen = q.with(quant_choice_);
    chosen.check();
    return chosen;
  }
  void override_quantization(const Quantization::Choice& c) { quant_choice_ = c; }

  std::string text(std::string_view key) const {
    if (!has(key)) throw DataError(file_ + ": missing key '" + std::string(key) + "'");
    const Value& v = *find(key);
    if (v.type != Value::Type::string)
      throw DataError(file_ + ": '" + std::string(key) + "' must be a string, got " + v.json);
    return v.text;
  }

 private:
  // ModelOpt's names (quant_algo, kv_cache_quant_algo) under `prefix`.
  void modelopt(Quantization& q, const std::string& prefix) const {
    const std::string algo = text(prefix + "quant_algo");
    if (algo == "FP8") q.gemm_dtype = q.expert_dtype = Dtype::fp8;
    else if (algo == "FP8_BLOCK_SCALES") q.gemm_dtype = q.expert_dtype = Dtype::fp8_block;
    else if (algo == "NVFP4") q.gemm_dtype = q.expert_dtype = Dtype::fp4;
    else
      throw DataError(file_ + ": " + prefix + "quant_algo '" + algo +
                      "' is not modelled (FP8, FP8_BLOCK_SCALES, NVFP4); override it with --quant");
    if (has(prefix + "kv_cache_quant_algo")) {
      const std::string kv = text(prefix + "kv_cache_quant_algo");
      if (kv != "FP8")
        throw DataError(file_ + ": " + prefix + "kv_cache_quant_algo '" + kv +
                        "' is not modelled (FP8 or none); override it with --kv-dtype");
      q.kv_dtype = Dtype::fp8;
    }
  }

  // compressed-tensors: one config group of 4-bit integer weights with no activation
  // quantization (W4A16, pack-quantized) is int4 weight-only. Its `ignore` list says which
  // linears stay 16-bit: with attention (self_attn) and the dense MLPs (mlp.*_proj) in it,
  // as Kimi-K2.5 ships, only the routed experts are int4, costdsl's expert_dtype; int4
  // dense or attention GEMMs are not modelled.
  void compressed_tensors(Quantization& q) const {
    const std::string g = "quantization_config.config_groups.group_0.";
    const std::string why = file_ + ": quantization_config (compressed-tensors): ";
    if (has("quantization_config.config_groups.group_1"))
      throw DataError(why + "several config_groups are not modelled (one W4A16 group is); override it with --quant");
    if (!has(g + "weights.num_bits") || !has(g + "weights.type"))
      throw DataError(why + "config_groups.group_0.weights needs num_bits and type");
    const Value& bits = *find(g + "weights.num_bits");
    if (bits.type != Value::Type::integer || bits.integer != 4 || text(g + "weights.type") != "int" ||
        has(g + "input_activations"))
      throw DataError(why + "only 4-bit int weights with 16-bit activations (W4A16) are modelled, got num_bits " +
                      bits.json + ", type " + find(g + "weights.type")->json + (has(g + "input_activations") ?
                      ", quantized activations" : "") + "; override it with --quant");
    bool attention = false, dense = false;
    if (const Value* ignore = find("quantization_config.ignore"); ignore && ignore->type == Value::Type::array)
      for (const Value& v : ignore->items) {
        attention = attention || (v.type == Value::Type::string && v.text.find("self_attn") != std::string::npos);
        dense = dense || (v.type == Value::Type::string && v.text.find("mlp\\.") != std::string::npos &&
                          v.text.find("_proj") != std::string::npos);
      }
    if (!attention || !dense)
      throw DataError(why + "int4 weights outside the routed experts (quantization_config.ignore names " +
                      std::string(attention ? "" : "no self_attn ") + std::string(dense ? "" : "no dense mlp ") +
                      "linears) are not modelled; override it with --quant");
    q.expert_dtype = Dtype::int4;
  }

  std::map<std::string, Value, std::less<>> entries_;
  std::string file_;
  Quantization::Choice quant_choice_;
};

}  // namespace costdsl
