#pragma once
// COSTDSL_RESOLVED(a, b, ...): the last statement of a worklet's resolve_config.
// It returns a struct whose members a, b, ... have the names, types and values of
// the locals a, b, ... computed above it, so each resolved field is named where it
// is computed and once here:
//
//   static constexpr auto resolve_config(const Form& form) {
//     const auto hidden = dim<"hidden">(form);
//     const auto tp = dim<"tp">(form);
//     const auto intermediate_per_rank = dim<"intermediate">(form) / tp;
//     COSTDSL_RESOLVED(hidden, tp, intermediate_per_rank);
//   }
//
// Why a macro: a local class cannot declare `decltype(hidden) hidden;` (the name
// would change meaning inside it, which is ill-formed), and a non-local struct
// would repeat every field as a template parameter. The macro writes the one
// alias per field that the rule requires. Static dims keep their types (Static<n>
// members), so the worklet's checks stay compile-time.
#include <type_traits>

#include <boost/preprocessor/cat.hpp>
#include <boost/preprocessor/seq/for_each.hpp>
#include <boost/preprocessor/variadic/to_seq.hpp>

#define COSTDSL_DETAIL_RESOLVED_ALIAS(r, data, field) \
  using BOOST_PP_CAT(costdsl_resolved_type_of_, field) = std::remove_cv_t<decltype(field)>;
#define COSTDSL_DETAIL_RESOLVED_MEMBER(r, data, field) BOOST_PP_CAT(costdsl_resolved_type_of_, field) field;

#define COSTDSL_RESOLVED(...)                                                                      \
  BOOST_PP_SEQ_FOR_EACH(COSTDSL_DETAIL_RESOLVED_ALIAS, ~, BOOST_PP_VARIADIC_TO_SEQ(__VA_ARGS__))  \
  struct Resolved {                                                                                \
    BOOST_PP_SEQ_FOR_EACH(COSTDSL_DETAIL_RESOLVED_MEMBER, ~, BOOST_PP_VARIADIC_TO_SEQ(__VA_ARGS__)) \
  };                                                                                               \
  return Resolved { __VA_ARGS__ }
