#pragma once
// A shape's config.json table: for each reflected field, the HuggingFace key it reads and
// what it takes when the key is absent. A frame's shape writes the table its families share;
// a family's Layer lists only the rows it reads otherwise (Mixtral's experts are
// num_local_experts); read_hf_shape fills the shape in field order, so a default that names
// another field sees it read:
//
//   static constexpr std::array hf_keys{hf_key("hidden", "hidden_size"),
//                                       hf_key("num_kv_heads", "num_key_value_heads").or_field("num_qo_heads"),
//                                       hf_key("head_dim", "head_dim").or_ratio("hidden", "num_qo_heads"),
//                                       not_in_family("sliding_window")};
//
// The activation dtype (a field `dtype`) is torch_dtype's; a field the family computes
// from several keys (DeepSeek's shared expert width) is `computed` and left to its from_hf.
// Every error names the file, the key, the value and the rule (HfConfig).
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>

#include "costdsl/dtype.hpp"
#include "costdsl/error.hpp"
#include "costdsl/fields.hpp"
#include "costdsl/hf_config.hpp"

namespace costdsl {

struct HfKey {
  enum class Absent : std::uint8_t { error, field, ratio, fixed, computed };
  std::string_view field, key;
  Absent absent = Absent::error;
  std::uint32_t value = 0;
  std::string_view numerator{}, denominator{};  // field: numerator; ratio: both

  // When the key is absent: another field's value, or num / den of two fields (which must
  // then divide: transformers' head_dim = hidden_size / heads).
  constexpr HfKey or_field(std::string_view f) const noexcept { return {field, key, Absent::field, 0, f}; }
  constexpr HfKey or_ratio(std::string_view num, std::string_view den) const noexcept {
    return {field, key, Absent::ratio, 0, num, den};
  }
};

// `field` reads `key`, required unless a default follows.
constexpr HfKey hf_key(std::string_view field, std::string_view key) noexcept { return {field, key}; }
// A field the family does not have (a frame's option another family uses): 0, not read.
constexpr HfKey not_in_family(std::string_view field) noexcept { return {field, {}, HfKey::Absent::fixed, 0}; }
// A field the family's from_hf computes itself after the table is read.
constexpr HfKey computed(std::string_view field) noexcept { return {field, {}, HfKey::Absent::computed}; }

namespace detail {
// Whether `table` has a row for `field` (a bool, not find_hf_key's pointer: g++ 12 will not
// compare a pointer into a constexpr array with null in a constant expression).
template <std::size_t N>
constexpr bool has_hf_key(const std::array<HfKey, N>& table, std::string_view field) noexcept {
  for (const HfKey& k : table)
    if (k.field == field) return true;
  return false;
}
template <std::size_t N>
constexpr const HfKey* find_hf_key(const std::array<HfKey, N>& table, std::string_view field) noexcept {
  for (const HfKey& k : table)
    if (k.field == field) return &k;
  return nullptr;
}

// A field's row: the family's (`own`) where it has one, else the frame's (`shared`).
template <std::size_t N, std::size_t M>
const HfKey* row_for(const std::array<HfKey, N>& shared, const std::array<HfKey, M>& own, std::string_view field) {
  const HfKey* k = find_hf_key(own, field);
  return k != nullptr ? k : find_hf_key(shared, field);
}
}  // namespace detail

// Whether a table fits its shape: every uint32 field has a row (the family's or the frame's),
// every row names a field, and a default naming fields names ones read before it. Frames
// static_assert it, so a misspelt row does not compile rather than go unread.
template <class S, std::size_t N, std::size_t M>
constexpr bool hf_table_fits(const std::array<HfKey, N>& shared, const std::array<HfKey, M>& own) {
  const S s{};
  constexpr std::size_t none = ~std::size_t{0};
  const auto index_of = [&](std::string_view field) {
    std::size_t i = 0, at = none;
    for_each_field(s, [&](std::string_view name, const auto& v) {
      if constexpr (std::is_same_v<std::remove_cvref_t<decltype(v)>, std::uint32_t>)
        if (name == field) at = i;
      ++i;
    });
    return at;
  };
  bool fits = true;
  for_each_field(s, [&](std::string_view name, const auto& v) {
    if constexpr (std::is_same_v<std::remove_cvref_t<decltype(v)>, std::uint32_t>)
      fits = fits && (detail::has_hf_key(own, name) || detail::has_hf_key(shared, name));
  });
  const auto row_fits = [&](const HfKey& k) {
    const std::size_t at = index_of(k.field);
    if (at == none) return false;
    if (k.absent == HfKey::Absent::field) return index_of(k.numerator) < at;
    if (k.absent == HfKey::Absent::ratio) return index_of(k.numerator) < at && index_of(k.denominator) < at;
    return true;
  };
  for (const HfKey& k : shared) fits = fits && row_fits(k);
  for (const HfKey& k : own) fits = fits && row_fits(k);
  return fits;
}

// A family's own rows: its Layer's hf_keys where it lists any.
template <class Layer>
constexpr auto layer_hf_keys() noexcept {
  if constexpr (requires { Layer::hf_keys; }) {
    return Layer::hf_keys;
  } else {
    return std::array<HfKey, 0>{};
  }
}

// A frame's shape `S` read from `hf` in field order: each uint32 field by its row, the
// family's (S::layer::hf_keys) else the frame's (S::hf_keys), whose fit to the shape's fields
// is checked when a frame first reads; the dtype from torch_dtype.
template <class S>
S read_hf_shape(const HfConfig& hf) {
  static constexpr auto shared = S::hf_keys;
  static constexpr auto own = layer_hf_keys<typename S::layer>();
  static_assert(hf_table_fits<S>(shared, own),
                "costdsl: a config.json row (a frame or family hf_keys) names no field of the shape, or a field has "
                "no row");
  S s{};
  const auto field = [&](std::string_view name) {
    return static_cast<std::uint32_t>(detail::integer_field(s, name).value);
  };
  for_each_field(s, [&](std::string_view name, auto& v) {
    using F = std::remove_cvref_t<decltype(v)>;
    if constexpr (std::is_same_v<F, Dtype>) {
      v = hf.dtype();
    } else if constexpr (std::is_same_v<F, std::uint32_t>) {
      const HfKey& k = *detail::row_for(shared, own, name);  // hf_table_fits: every field has one
      switch (k.absent) {
        case HfKey::Absent::error: v = hf.dim(k.key); break;
        case HfKey::Absent::field: v = hf.dim(k.key, field(k.numerator)); break;
        case HfKey::Absent::ratio: {
          if (hf.has(k.key)) {
            v = hf.dim(k.key);
            break;
          }
          const std::uint32_t num = field(k.numerator), den = field(k.denominator);
          if (den == 0 || num % den != 0)
            throw DataError(hf.file() + ": " + std::string(detail::row_for(shared, own, k.denominator)->key) + " " +
                            std::to_string(den) + " does not divide " +
                            std::string(detail::row_for(shared, own, k.numerator)->key) + " " + std::to_string(num) +
                            " and there is no " + std::string(k.key));
          v = num / den;
          break;
        }
        case HfKey::Absent::fixed: v = k.value; break;
        case HfKey::Absent::computed: break;
      }
    }
  });
  return s;
}

}  // namespace costdsl
