#include <doctest/doctest.h>

#include <array>
#include <string>

#include "costdsl/costdsl.hpp"
#include "test_kernel.hpp"

using namespace costdsl;
using namespace costdsl::testing;
using namespace costdsl::literals;
using json = nlohmann::json;

namespace {
struct Proj {
  static constexpr std::string_view kind = "proj";
  static constexpr Family family = Family::gemm;
  using Input = TokensInput;
  Dim n, k;
  Metrics eval(const Input& in) const {
    return Metrics{1e-9 * in.tokens * double(n) * double(k) / 4096, 2.0 * in.tokens * double(n * k), 0, 0,
                   Coverage::none, 0};
  }
  std::vector<ConfigField> config_fields() const { return {{"n", n}, {"k", k}, {"dtype", std::string("bf16")}}; }
  std::vector<std::string> backends() const { return {"cublaslt", "torch"}; }
};

auto small_model(std::uint32_t tp_value) {
  auto hidden = sym<"hidden">(4096u);
  auto tp = sym<"tp">(tp_value);
  return labeled<"model">(
      "model (Toy) [tp=" + std::to_string(tp_value) + "]",
      sum(leaf<"embed">(AffineKernel{1e-6, 0, 0}),
          labeled<"layer">("layer", scale(Static<4>{}, sum(leaf<"up">(Proj{to_dim(hidden / tp * 4_c), to_dim(hidden)}),
                                                           leaf<"down">(Proj{to_dim(hidden), to_dim(hidden / tp)})))),
          parallel(Ratio<9, 10>{}, leaf<"routed">(AffineKernel{2e-6, 1e-9, 1}),
                   leaf<"shared">(AffineKernel{1e-6, 1e-9, 1}))));
}
auto small_inputs(double m) {
  return nest<"model">(inputs(input<"embed">(TokensInput{m}),
                              nest<"layer">(inputs(input<"up">(TokensInput{m}), input<"down">(TokensInput{m}))),
                              input<"routed">(TokensInput{m}), input<"shared">(TokensInput{m})));
}
}  // namespace

TEST_CASE("the manifest lists slots with dims, formulas and bindings, and BFS nodes") {
  const json j = to_json(make_manifest(small_model(4)));
  REQUIRE(j["slots"].size() == 5);
  CHECK(j["slots"][1]["name"] == "model.layer.up");
  CHECK(j["slots"][1]["kind"] == "proj");
  CHECK(j["slots"][1]["family"] == "gemm");   // the slot kernel's own
  CHECK(j["slots"][0]["family"] == "other");  // a slot kernel that declares none
  CHECK(j["slots"][1]["config"]["n"]["value"] == 4096);
  CHECK(j["slots"][1]["config"]["n"]["formula"] == "hidden/tp*4");
  CHECK(j["slots"][1]["config"]["n"]["bindings"]["tp"] == 4);
  CHECK(j["slots"][1]["config"]["dtype"] == "bf16");
  CHECK(j["slots"][1]["backends"] == json({"cublaslt", "torch"}));
  // BFS: every parent precedes its children, child ranges are contiguous.
  const auto& nodes = j["nodes"];
  CHECK(nodes[0]["kind"] == "labeled");
  CHECK(j["node_labels"][0] == "model (Toy) [tp=4]");
  for (std::size_t i = 0; i < nodes.size(); ++i)
    if (nodes[i].contains("children")) CHECK(nodes[i]["children"][0].get<std::size_t>() > i);
  CHECK(j["node_labels"].size() == nodes.size());
}

TEST_CASE("re-aggregating a slot row over the manifest reproduces the total exactly") {
  const auto tree = small_model(8);
  const json j = json::parse(to_json(make_manifest(tree)).dump(2));  // through text and back
  const FlatTree flat = flat_tree_from_manifest(j);
  for (double m : {1.0, 17.0, 4096.0}) {
    std::array<Metrics, 5> row{};
    const Metrics total = evaluate(tree, small_inputs(m), row);
    CHECK(flat.aggregate(row) == total);
    // A taxonomy replayed afterwards (INV-6): per-slot shares times the scale add back up.
    double replay = row[0].time_s + 4 * (row[1].time_s + row[2].time_s) + std::max(row[3].time_s, row[4].time_s) / 0.9;
    CHECK(total.time_s == doctest::Approx(replay));
  }
}

TEST_CASE("a tree known only at run time is built directly in the flat twin") {
  const RuntimeNode root = RuntimeNode::sum(
      {RuntimeNode::leaf("a"), RuntimeNode::scale(3, RuntimeNode::sum({RuntimeNode::leaf("b"), RuntimeNode::leaf("c")})),
       RuntimeNode::leaf("d")});
  const FlatTree flat = FlatTree::from_runtime(root);
  CHECK(flat.n_slots() == 4);
  const std::array<Metrics, 4> row{Metrics{1, 1}, Metrics{10, 10}, Metrics{100, 100}, Metrics{1000, 1000}};
  CHECK(flat.aggregate(row).time_s == 1 + 3 * 110 + 1000);
  // The same shape written as a static tree lowers to the same nodes.
  auto k = AffineKernel{};
  const FlatTree lowered =
      lower(sum(leaf<"a">(k), scale(Static<3>{}, sum(leaf<"b">(k), leaf<"c">(k))), leaf<"d">(k)));
  CHECK(lowered.nodes() == flat.nodes());
}

TEST_CASE("aggregate rejects a row or scratch of the wrong size") {
  const FlatTree flat = lower(sum(leaf<"a">(AffineKernel{}), leaf<"b">(AffineKernel{})));
  std::array<Metrics, 1> short_row{};
  CHECK_THROWS_WITH_AS(flat.aggregate(short_row), "aggregate: got 1 slot metrics for a tree with 2 slots", InputError);
  std::array<Metrics, 2> row{};
  std::array<Metrics, 1> scratch{};
  CHECK_THROWS_AS(flat.aggregate(row, scratch), InputError);
}

TEST_CASE("a malformed manifest is a DataError naming the node") {
  const json good = to_json(make_manifest(small_model(2)));
  auto broken = [&](auto edit) {
    json j = good;
    edit(j);
    return j;
  };
  CHECK_THROWS_WITH_AS(flat_tree_from_manifest(broken([](json& j) { j["nodes"][1]["kind"] = "product"; })),
                       "manifest: nodes[1].kind 'product' is not one of leaf, sum, max, parallel, scale, labeled",
                       DataError);
  // A Fanout is written as the max with ranks it lowers to; "fanout" is no manifest kind.
  CHECK_THROWS_WITH_AS(flat_tree_from_manifest(broken([](json& j) { j["nodes"][1]["kind"] = "fanout"; })),
                       "manifest: nodes[1].kind 'fanout' is not one of leaf, sum, max, parallel, scale, labeled",
                       DataError);
  CHECK_THROWS_WITH_AS(flat_tree_from_manifest(broken([](json& j) { j["nodes"][0]["children"] = {0, 1}; })),
                       "flat tree node 0: children must come after their parent (BFS order)", DataError);
  CHECK_THROWS_AS(flat_tree_from_manifest(broken([](json& j) { j["node_labels"].erase(0); })), DataError);
  CHECK_THROWS_WITH_AS(flat_tree_from_manifest(broken([](json& j) { j.erase("nodes"); })),
                       "manifest: root has no 'nodes'", DataError);
  CHECK_THROWS_AS(flat_tree_from_manifest(broken([](json& j) { j["slots"].push_back(j["slots"][0]); })), DataError);
  for (std::size_t i = 0; i < good["nodes"].size(); ++i) {
    if (good["nodes"][i]["kind"] == "scale") {
      CHECK_THROWS_WITH_AS(flat_tree_from_manifest(broken([&](json& j) { j["nodes"][i]["n"] = 0; })),
                           ("flat tree node " + std::to_string(i) + ": scale n must be >= 1").c_str(), DataError);
    }
    if (good["nodes"][i]["kind"] == "parallel") {
      CHECK_THROWS_AS(flat_tree_from_manifest(broken([&](json& j) { j["nodes"][i]["overlap"] = 1.5; })), DataError);
    }
  }
}

TEST_CASE("describe renders the labeled tree, one leaf per line with kind and config") {
  const std::string text = describe(small_model(4));
  CHECK(text.find("model (Toy) [tp=4]\n") == 0);
  CHECK(text.find("  layer\n    × 4\n") != std::string::npos);
  CHECK(text.find("model.layer.up  proj  n=4096 = hidden/tp*4 [hidden=4096, tp=4]  k=4096") != std::string::npos);
  CHECK(text.find("parallel streams (overlap 0.9)") != std::string::npos);
  CHECK(text.find("backends=cublaslt,torch") != std::string::npos);
  int leaves = 0;
  for (std::size_t p = text.find("model."); p != std::string::npos; p = text.find("model.", p + 1)) ++leaves;
  CHECK(leaves == 5);
}
