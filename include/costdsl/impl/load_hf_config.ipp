// Definitions of costdsl/load_hf_config.hpp (see costdsl/detail/config.hpp).
#include <utility>

#include <nlohmann/json.hpp>

#include "costdsl/detail/read_text_file.hpp"
#include "costdsl/error.hpp"
#include "costdsl/load_hf_config.hpp"

namespace costdsl {

namespace detail {
COSTDSL_DECL HfConfig::Value hf_value(const nlohmann::json& j) {
  using Type = HfConfig::Value::Type;
  HfConfig::Value v;
  v.json = j.dump();
  if (j.is_null()) {
    v.type = Type::null;
  } else if (j.is_boolean()) {
    v.type = Type::boolean;
    v.integer = j.get<bool>() ? 1 : 0;
  } else if (j.is_number_unsigned()) {
    v.type = Type::unsigned_integer;
    v.unsigned_integer = j.get<std::uint64_t>();
    v.number = static_cast<double>(v.unsigned_integer);
    // Small non-negative integers read through either accessor.
    if (v.unsigned_integer <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
      v.type = Type::integer;
      v.integer = static_cast<std::int64_t>(v.unsigned_integer);
    }
  } else if (j.is_number_integer()) {
    v.type = Type::integer;
    v.integer = j.get<std::int64_t>();
    v.number = static_cast<double>(v.integer);
  } else if (j.is_number()) {
    v.type = Type::number;
    v.number = j.get<double>();
  } else if (j.is_string()) {
    v.type = Type::string;
    v.text = j.get<std::string>();
  } else if (j.is_array()) {
    v.type = Type::array;
    for (const auto& e : j) v.items.push_back(hf_value(e));
  } else {
    v.type = Type::object;
  }
  return v;
}
}  // namespace detail

namespace detail {
COSTDSL_DECL nlohmann::json parse_json_object(std::string_view text, const std::string& file, std::string_view what) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {  // parse_error, and out_of_range for a number too large
    throw DataError(file + ": not valid JSON (" + e.what() + ")");
  }
  if (!j.is_object())
    throw DataError(file + ": " + std::string(what) + " must hold a JSON object, got " + std::string(j.type_name()));
  return j;
}

// A multimodal checkpoint (Kimi-K2.5, Llama-4, Qwen3.5: a *ForConditionalGeneration) nests
// its language model under text_config, and costdsl serves text requests: that model is the
// config. Its members stand at the top, over the wrapper's own architectures and model_type;
// the wrapper's other keys (vision_config, a quantization_config of its own) stay.
COSTDSL_DECL nlohmann::json language_model(const nlohmann::json& j) {
  const auto t = j.find("text_config");
  if (t == j.end() || !t->is_object() || j.contains("num_hidden_layers")) return j;
  nlohmann::json out = j;
  out.erase("text_config");
  for (const auto& [key, value] : t->items()) out[key] = value;
  return out;
}

COSTDSL_DECL HfConfig hf_config_of(const nlohmann::json& wrapped, std::string file) {
  const nlohmann::json j = language_model(wrapped);
  std::map<std::string, HfConfig::Value, std::less<>> entries;
  for (const auto& [key, value] : j.items()) entries.emplace(key, hf_value(value));
  // An object's members are entries too, as "object.member", and theirs
  // "object.member.inner" (HF nests its quantization_config, rope_scaling, ... one level
  // deep; compressed-tensors' config_groups.group_0.weights.num_bits four), so a family
  // reads e.g. quantization_config.quant_method with the same accessors. A key spelled the
  // same way at a shallower level keeps its own value.
  const auto members = [&](const auto& self, const std::string& prefix, const nlohmann::json& object,
                           int depth) -> void {
    for (const auto& [member, inner] : object.items()) {
      const std::string key = prefix + "." + member;
      entries.emplace(key, hf_value(inner));
      if (inner.is_object() && depth < 4) self(self, key, inner, depth + 1);
    }
  };
  for (const auto& [key, value] : j.items())
    if (value.is_object()) members(members, key, value, 1);
  return HfConfig(std::move(entries), std::move(file));
}
}  // namespace detail

COSTDSL_DECL HfConfig parse_hf_config(std::string_view text, std::string file) {
  const nlohmann::json j = detail::parse_json_object(text, file, "a config.json");
  return detail::hf_config_of(j, std::move(file));
}

COSTDSL_DECL HfConfig load_hf_config(const std::filesystem::path& path) {
  nlohmann::json j = detail::parse_json_object(detail::read_text_file(path, "model config"), path.string(),
                                               "a config.json");
  // NVIDIA's quantized checkpoints describe their quantization in hf_quant_config.json
  // beside config.json (in a flat copy of many models: NAME_hf_quant_config.json beside
  // NAME_config.json); its "quantization" members join the config as hf_quant_config.<member>.
  const std::string name = path.filename().string();
  constexpr std::string_view suffix = "config.json";
  if (name.ends_with(suffix) && !name.ends_with("hf_quant_config.json")) {
    const std::filesystem::path quant =
        path.parent_path() / (name.substr(0, name.size() - suffix.size()) + "hf_quant_config.json");
    std::error_code ec;
    if (std::filesystem::is_regular_file(quant, ec)) {
      const nlohmann::json q = detail::parse_json_object(detail::read_text_file(quant, "quantization config"),
                                                         quant.string(), "an hf_quant_config.json");
      if (!q.contains("quantization") || !q["quantization"].is_object())
        throw DataError(quant.string() + ": an hf_quant_config.json must hold a \"quantization\" object");
      j["hf_quant_config"] = q["quantization"];
    }
  }
  return detail::hf_config_of(j, path.string());
}

}  // namespace costdsl
