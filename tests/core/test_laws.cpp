// Laws over randomly generated static trees (every node kind, nested, with
// Scale, Labeled and run-time Fanout): static fold == runtime twin == manifest re-aggregation
// == a straightforward recursive reference evaluator of §2.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <random>
#include <vector>

#include "costdsl/costdsl.hpp"
#include "test_kernel.hpp"

using namespace costdsl;
using namespace costdsl::testing;

namespace gen {

constexpr std::uint64_t mix(std::uint64_t x) {  // splitmix64
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

template <char Prefix, std::uint64_t Seed>
constexpr auto name() {
  FixedString<9> s;
  s.data[0] = Prefix;
  for (int i = 0; i < 8; ++i) s.data[1 + i] = "0123456789abcdef"[(Seed >> (4 * i)) & 15];
  return s;
}

template <std::uint64_t Seed, int Depth>
struct Tree;

template <std::uint64_t Seed, int Depth, class Seq>
struct Children;
template <std::uint64_t Seed, int Depth, std::size_t... I>
struct Children<Seed, Depth, std::index_sequence<I...>> {
  using sum = Sum<typename Tree<mix(Seed + 11 * (I + 1)), Depth - 1>::type...>;
  using max = Max<typename Tree<mix(Seed + 11 * (I + 1)), Depth - 1>::type...>;
  using par = Parallel<Ratio<(Seed >> 20) % 10 + 1, 10>, typename Tree<mix(Seed + 11 * (I + 1)), Depth - 1>::type...>;
};

// One specialization per node kind, so only the chosen kind's children are instantiated.
template <int Kind, std::uint64_t Seed, int Depth>
struct Pick;
template <std::uint64_t Seed, int Depth>
using kids = Children<Seed, Depth, std::make_index_sequence<1 + (Seed >> 8) % 3>>;
template <std::uint64_t Seed, int Depth>
struct Pick<0, Seed, Depth> {
  using type = Leaf<name<'s', Seed>(), AffineKernel>;
};
template <std::uint64_t Seed, int Depth>
struct Pick<1, Seed, Depth> {
  using type = typename kids<Seed, Depth>::sum;
};
template <std::uint64_t Seed, int Depth>
struct Pick<2, Seed, Depth> {
  using type = typename kids<Seed, Depth>::max;
};
template <std::uint64_t Seed, int Depth>
struct Pick<3, Seed, Depth> {
  using type = typename kids<Seed, Depth>::par;
};
template <std::uint64_t Seed, int Depth>
struct Pick<4, Seed, Depth> {
  using type = Scale<Static<(Seed >> 12) % 7 + 1>, typename Tree<mix(Seed + 1), Depth - 1>::type>;
};
template <std::uint64_t Seed, int Depth>
struct Pick<5, Seed, Depth> {
  using type = Labeled<name<'g', Seed>(), typename Tree<mix(Seed + 1), Depth - 1>::type>;
};

template <std::uint64_t Seed, int Depth>
struct Pick<6, Seed, Depth> {
  using type = Fanout<typename Tree<mix(Seed + 1), Depth - 1>::type>;
};

template <std::uint64_t Seed, int Depth>
struct Tree {
  using type = typename Pick<Depth == 0 ? 0 : static_cast<int>(Seed % 7), Seed, Depth>::type;
};

constexpr std::uint64_t fanout_ranks = 3;

// Build a value of a generated tree type with random leaf parameters.
template <class N>
N make(std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(0.0, 1.0);
  if constexpr (RankFanout<N>) {
    return N{make<decltype(N{}.child)>(rng), fanout_ranks};
  } else if constexpr (N::node_kind == NodeKind::leaf) {
    const Coverage flags[] = {Coverage::none, Coverage::none, Coverage::analytic, Coverage::extrapolated,
                              Coverage::no_coverage};
    return N{AffineKernel{u(rng) * 1e-5, u(rng) * 1e-8, u(rng) * 1e9, flags[rng() % 5], 0}};
  } else if constexpr (N::node_kind == NodeKind::labeled) {
    return N{"label " + std::string(N::name.view()), make<decltype(N{}.child)>(rng)};
  } else if constexpr (N::node_kind == NodeKind::scale) {
    return N{{}, make<decltype(N{}.child)>(rng)};
  } else {
    N n{};
    detail::apply([&](auto&... c) { ((c = make<std::remove_cvref_t<decltype(c)>>(rng)), ...); }, n.children);
    return n;
  }
}

// Random inputs of any input-list value type; a Fanout's per-rank lists live in `keep`.
using Keep = std::vector<std::shared_ptr<void>>;
template <class V>
V random_value(std::mt19937_64& rng, Keep& keep) {
  if constexpr (std::is_same_v<V, TokensInput>) {
    return TokensInput{double(std::uniform_int_distribution<int>(0, 4096)(rng))};
  } else if constexpr (requires { typename V::element_type; }) {  // a Fanout's span of rank lists
    using R = std::remove_const_t<typename V::element_type>;
    auto ranks = std::make_shared<std::vector<R>>();
    for (std::uint64_t r = 0; r < fanout_ranks; ++r) ranks->push_back(random_value<R>(rng, keep));
    keep.push_back(ranks);
    return V(*ranks);
  } else {  // an Inputs list
    return [&]<class... I>(detail::Tuple<I...>*) {
      return V{{{{I{random_value<typename I::value_type>(rng, keep)}}...}}};
    }(static_cast<decltype(V{}.items)*>(nullptr));
  }
}

template <class Tree>
auto random_inputs(std::mt19937_64& rng, Keep& keep) {
  return random_value<rank_inputs_t<Tree>>(rng, keep);
}

}  // namespace gen

// A recursive reference straight from the table in design §2.
static Metrics reference(const RuntimeNode& n, const std::vector<Metrics>& row, std::size_t& next_slot) {
  if (n.kind == NodeKind::leaf) return row[next_slot++];
  std::vector<Metrics> c;
  for (const auto& child : n.children) c.push_back(reference(child, row, next_slot));
  Metrics m{};
  for (const auto& x : c) {
    m.flops += x.flops;
    m.bytes += x.bytes;
    m.energy_j += x.energy_j;
    m.coverage |= x.coverage;
  }
  switch (n.kind) {
    case NodeKind::sum:
      for (const auto& x : c) m.time_s += x.time_s;
      break;
    case NodeKind::max:
    case NodeKind::parallel:
      for (const auto& x : c) m.time_s = std::max(m.time_s, x.time_s);
      if (n.kind == NodeKind::parallel) m.time_s /= n.param;
      break;
    case NodeKind::scale:
      m = algebra::scale(c[0], n.param);
      break;
    default:
      m = c[0];
  }
  return m;
}

template <std::uint64_t Seed>
void check_laws() {
  using T = typename gen::Tree<gen::mix(Seed), 4>::type;
  std::mt19937_64 rng(Seed);
  const T tree = gen::make<T>(rng);
  const Manifest manifest = make_manifest(tree);
  const FlatTree reloaded = flat_tree_from_manifest(nlohmann::json::parse(to_json(manifest).dump()));
  CAPTURE(Seed);
  REQUIRE(manifest.tree.n_slots() == n_slots<T>);
  REQUIRE(manifest.slots.size() == n_slots<T>);
  for (std::size_t i = 0; i < n_slots<T>; ++i) CHECK(manifest.slots[i].name == slot_paths<T>[i]);
  for (int trial = 0; trial < 5; ++trial) {
    gen::Keep keep;
    const auto in = gen::random_inputs<T>(rng, keep);
    std::array<Metrics, n_slots<T>> row{};
    const Metrics fold = evaluate(tree, in, row);
    CHECK(fold == evaluate(tree, in));
    std::vector<Metrics> scratch(manifest.tree.size());
    const Metrics twin = manifest.tree.aggregate(row, scratch);
    const Metrics replay = reloaded.aggregate(row, scratch);
    // Bitwise equal: both walk the same algebra in the same order.
    CHECK(fold == twin);
    CHECK(fold == replay);
    std::size_t next = 0;
    const Metrics ref = reference(to_runtime(tree), std::vector<Metrics>(row.begin(), row.end()), next);
    CHECK(fold.time_s == doctest::Approx(ref.time_s).epsilon(1e-12));
    CHECK(fold.flops == doctest::Approx(ref.flops).epsilon(1e-12));
    CHECK(fold.coverage == ref.coverage);

    // Balance never adds time nor moves work; without a Fanout (whose row keeps only the
    // slowest rank) it is the manifest's mean fold of the same row.
    const Metrics balanced = evaluate_balanced(tree, in);
    CHECK(balanced.time_s <= fold.time_s * (1 + 1e-12));
    CHECK(balanced.flops == doctest::Approx(fold.flops).epsilon(1e-12));
    CHECK(balanced.coverage == fold.coverage);
    const bool has_fanout = std::any_of(manifest.tree.nodes().begin(), manifest.tree.nodes().end(),
                                        [](const FlatNode& n) { return n.kind == NodeKind::max && n.param != 0; });
    if (!has_fanout)
      CHECK(balanced.time_s ==
            doctest::Approx(manifest.tree.aggregate(row, scratch, FlatTree::MaxFold::mean).time_s).epsilon(1e-12));
  }
}

TEST_CASE("laws hold over random trees of every node kind") {
  [&]<std::size_t... I>(std::index_sequence<I...>) { (check_laws<1000 + I * 7919>(), ...); }
  (std::make_index_sequence<24>{});
}

TEST_CASE("the random trees really mix every node kind") {
  std::array<int, 7> seen{};  // every NodeKind; a Fanout as the twin holds it, a Max with ranks
  auto count = [&](const RuntimeNode& n, auto& self) -> void {
    const NodeKind kind = n.kind == NodeKind::max && n.param != 0 ? NodeKind::fanout : n.kind;
    ++seen[static_cast<std::size_t>(kind)];
    for (const auto& c : n.children) self(c, self);
  };
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    std::mt19937_64 rng(1);
    (count(to_runtime(gen::make<typename gen::Tree<gen::mix(1000 + I * 7919), 4>::type>(rng)), count), ...);
  }(std::make_index_sequence<24>{});
  for (std::size_t k = 0; k < seen.size(); ++k)
    CHECK_MESSAGE(seen[k] > 0, "node kind " << name(static_cast<NodeKind>(k)) << " never generated");
}
