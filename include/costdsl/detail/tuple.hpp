#pragma once
// A flat tuple for node children and input lists.
//
// std::tuple nests one base class per element (libstdc++'s _Tuple_impl recursion) and
// its constructors, get and apply pull in a deep tower of traits (is_constructible,
// __and_, __or_, invoke_result) instantiated over the long types of a cost tree; in a
// whole-model translation unit that machinery was a third of the template work. Here
// every element is a direct base (TupleLeaf<I, T>), get<I> is one overload resolution,
// and construction is aggregate initialisation.
#include <array>
#include <cstddef>
#include <type_traits>
#include <utility>

#include <boost/mp11/algorithm.hpp>
#include <boost/mp11/list.hpp>

#include "costdsl/concepts.hpp"

namespace costdsl::detail {

template <std::size_t I, class T>
struct TupleLeaf {
  [[no_unique_address]] T value;
};

template <class Indices, class... T>
struct TupleBase;
template <std::size_t... I, class... T>
struct TupleBase<std::index_sequence<I...>, T...> : TupleLeaf<I, T>... {};

template <class... T>
struct Tuple : TupleBase<std::index_sequence_for<T...>, T...> {
  static constexpr std::size_t size = sizeof...(T);
};

template <std::size_t I, class T>
constexpr T& get(TupleLeaf<I, T>& leaf) noexcept {
  return leaf.value;
}
template <std::size_t I, class T>
constexpr const T& get(const TupleLeaf<I, T>& leaf) noexcept {
  return leaf.value;
}
template <std::size_t I, class T>
constexpr T&& get(TupleLeaf<I, T>&& leaf) noexcept {
  return static_cast<T&&>(leaf.value);
}

// Tuple{a, b, ...} by value (lvalues are copied, rvalues moved).
template <class... T>
constexpr Tuple<std::remove_cvref_t<T>...> make_tuple(T&&... x) {
  return {{{std::forward<T>(x)}...}};
}

template <class T>
struct is_tuple : std::false_type {};
template <class... T>
struct is_tuple<Tuple<T...>> : std::true_type {};

// f(element...) for a tuple's elements, in order.
template <class F, class Tup>
constexpr decltype(auto) apply(F&& f, Tup&& t) {
  return [&]<std::size_t... I>(std::index_sequence<I...>) -> decltype(auto) {
    return std::forward<F>(f)(get<I>(std::forward<Tup>(t))...);
  }(std::make_index_sequence<std::remove_cvref_t<Tup>::size>{});
}

// ----------------------------------------------------------------------------- splice
// splice(a, b, ...): one flat Tuple of the arguments' elements, in order: a Tuple
// argument contributes its elements, an Absent nothing, anything else itself. What
// sum(), max_over(), inputs() and the worklets' slot builders are made of.

template <class A>
struct splice_part {  // a plain value: one element
  using elements = boost::mp11::mp_list<A>;
};
template <>
struct splice_part<Absent> {
  using elements = boost::mp11::mp_list<>;
};
template <class... T>
struct splice_part<Tuple<T...>> {
  using elements = boost::mp11::mp_list<T...>;
};

template <class... A>
struct SplicePlan {
  using elements = boost::mp11::mp_append<typename splice_part<A>::elements...>;
  static constexpr std::size_t size = boost::mp11::mp_size<elements>::value;
  static constexpr std::array<std::size_t, sizeof...(A)> part_sizes{
      boost::mp11::mp_size<typename splice_part<A>::elements>::value...};
  // For each output element: which argument it comes from and its index there.
  static constexpr auto source = [] {
    std::array<std::pair<std::size_t, std::size_t>, size> out{};
    std::size_t j = 0;
    for (std::size_t a = 0; a < sizeof...(A); ++a)
      for (std::size_t e = 0; e < part_sizes[a]; ++e) out[j++] = {a, e};
    return out;
  }();
};

// The output element: argument Arg (forwarded as it was passed), or its element Elem.
template <std::size_t Arg, std::size_t Elem, class Args, class Refs>
constexpr decltype(auto) splice_pick(Refs& refs) {
  using A = boost::mp11::mp_at_c<Args, Arg>;  // the argument's forwarding type
  if constexpr (is_tuple<std::remove_cvref_t<A>>::value) {
    return get<Elem>(std::forward<A>(get<Arg>(refs)));
  } else {
    return std::forward<A>(get<Arg>(refs));
  }
}

template <class... A>
constexpr auto splice(A&&... a) {
  using Plan = SplicePlan<std::remove_cvref_t<A>...>;
  Tuple<A&&...> refs{{{std::forward<A>(a)}...}};
  return [&]<std::size_t... J>(std::index_sequence<J...>) {
    using Out = boost::mp11::mp_rename<typename Plan::elements, Tuple>;
    return Out{{{splice_pick<Plan::source[J].first, Plan::source[J].second, boost::mp11::mp_list<A...>>(refs)}...}};
  }(std::make_index_sequence<Plan::size>{});
}

// Node<K...>{children} from the spliced children (Sum, Max).
template <template <class...> class Node, class... K>
constexpr Node<K...> node_from(Tuple<K...>&& children) {
  return {std::move(children)};
}

}  // namespace costdsl::detail
