#include <doctest/doctest.h>

#include <string>
#include <unordered_set>

#include "costdsl/dim_expr.hpp"
#include "costdsl/dim_hash.hpp"
#include "costdsl/form.hpp"
#include "costdsl/reflect.hpp"

using namespace costdsl;
using namespace costdsl::literals;

TEST_CASE("run-time dims give the reference shapes with provenance") {
  const std::uint32_t tp_value = 4;
  auto num_qo_heads = sym<"num_qo_heads">(32u);
  auto num_kv_heads = sym<"num_kv_heads">(8u);
  auto head_dim = sym<"head_dim">(128u);
  auto tp = sym<"tp">(tp_value);
  Dim qkv = to_dim((num_qo_heads / tp + 2_c * (num_kv_heads / tp)) * head_dim);
  CHECK(qkv.value == 1536);
  CHECK(qkv.formula == "(num_qo_heads/tp+2*num_kv_heads/tp)*head_dim");
  REQUIRE(qkv.bindings.size() == 4);  // each symbol once, in order of appearance
  CHECK(qkv.bindings[0] == std::pair<std::string, std::uint64_t>{"num_qo_heads", 32});
  CHECK(qkv.bindings[1] == std::pair<std::string, std::uint64_t>{"tp", 4});
  CHECK(qkv.bindings[3] == std::pair<std::string, std::uint64_t>{"head_dim", 128});
}

TEST_CASE("a run-time non-dividing tp is a ConfigError naming both fields and values") {
  auto num_kv_heads = sym<"num_kv_heads">(8u);
  auto tp = sym<"tp">(16u);
  CHECK_THROWS_WITH_AS((void)(num_kv_heads / tp), "tp 16 does not divide num_kv_heads 8", ConfigError);
  auto zero = sym<"tp">(0u);
  CHECK_THROWS_WITH_AS((void)(num_kv_heads / zero), "tp 0 is zero: cannot divide num_kv_heads 8 by it", ConfigError);
}

TEST_CASE("mixed static and run-time operands are checked at run time") {
  auto hidden = sym<"hidden">(Static<4096>{});
  auto tp = sym<"tp">(3u);
  CHECK_THROWS_AS((void)(hidden / tp), ConfigError);
  auto tp_ok = sym<"tp">(8u);
  CHECK((hidden / tp_ok).value() == 512);
}

TEST_CASE("u32 overflow in dim products is an error, not a wrap") {
  auto tokens = sym<"tokens">(std::uint64_t{1} << 20);
  auto vocab = sym<"vocab">(std::uint64_t{152064});
  CHECK_THROWS_WITH_AS((void)(tokens * vocab), "tokens*vocab = 1048576 * 152064 overflows 32 bits", ConfigError);
  auto big = sym<"a">(std::uint64_t{4294967295});
  CHECK_THROWS_AS((void)(big + 1_c), ConfigError);
  CHECK((sym<"a">(65535u) * sym<"b">(65537u)).value() == 4294967295u);  // the largest product that fits
}

TEST_CASE("subtraction below zero and rule checks are errors") {
  auto a = sym<"a">(3u);
  auto b = sym<"b">(5u);
  CHECK_THROWS_WITH_AS((void)(a - b), "a 3 - b 5 is negative", ConfigError);
  CHECK_THROWS_WITH_AS(require_le<"tp may not exceed num_kv_heads">(sym<"tp">(16u), sym<"num_kv_heads">(8u)),
                       "tp may not exceed num_kv_heads: tp 16 exceeds num_kv_heads 8", ConfigError);
  CHECK_NOTHROW(require_le<"tp may not exceed num_kv_heads">(sym<"tp">(8u), sym<"num_kv_heads">(8u)));
  CHECK_THROWS_WITH_AS(require_nonzero(sym<"num_layers">(0u)), "num_layers is 0; it must be at least 1", ConfigError);
}

TEST_CASE("dims compare and hash by value only") {
  Dim a{1024, "num_qo_heads/tp*head_dim", {{"num_qo_heads", 32}}};
  Dim b{1024};
  Dim c{2048};
  CHECK(a == b);
  CHECK_FALSE(a == c);
  std::unordered_set<Dim> set{a, b, c};
  CHECK(set.size() == 2);
}

TEST_CASE("COSTDSL_FIELDS: every field visited in order with its value; dim<> reads a run-time form") {
  struct Shape {
    COSTDSL_FIELDS((std::uint32_t, num_kv_heads), (Dtype, dtype), (std::uint32_t, tp));
  };
  Shape shape{8, Dtype::bf16, 2};
  std::string seen;
  for_each_field(shape, [&](std::string_view name, auto& value) {
    seen += std::string(name) + "=" + field_text(value) + ";";
    if constexpr (std::is_same_v<std::remove_cvref_t<decltype(value)>, std::uint32_t>) value *= 2;  // writable
  });
  CHECK(seen == "num_kv_heads=8;dtype=bf16;tp=2;");
  CHECK(shape.num_kv_heads == 16);
  CHECK(shape.tp == 4);
  CHECK(field_names<Shape>() == std::vector<std::string>{"num_kv_heads", "dtype", "tp"});
  const auto tp = dim<"tp">(shape);
  CHECK(tp.value() == 4);
  CHECK_THROWS_WITH_AS((void)to_dim(dim<"num_kv_heads">(shape) / sym<"tp">(3u)),
                       doctest::Contains("does not divide"), ConfigError);
}
