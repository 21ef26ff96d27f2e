#pragma once
// A kernel's Config or Input as a JSON object, field by field: dims and counts as
// numbers, dtypes and other fields as their text (`costdsl kernel --json`, the row calls
// `costdsl roofline serve` lists).
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>

#include <nlohmann/json.hpp>

#include "costdsl/reflect.hpp"

namespace costdsl::cli {

template <class S>
nlohmann::json fields_json(const S& s) {
  nlohmann::json j = nlohmann::json::object();
  for_each_field(s, [&](std::string_view name, const auto& v) {
    using T = std::remove_cvref_t<decltype(v)>;
    if constexpr (is_numeric_field_v<T>) {
      j[std::string(name)] = static_cast<std::uint64_t>(v);
    } else {
      j[std::string(name)] = field_text(v);
    }
  });
  return j;
}

}  // namespace costdsl::cli
