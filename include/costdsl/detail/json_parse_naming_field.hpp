#pragma once
// JSON parsing whose syntax errors name the field being read. nlohmann's own message
// gives a byte offset; a parameter written as NaN or Infinity (what Python's json.dumps
// writes for a float that is not finite) is then an error about column 412. Tracking the
// keys as the parser walks lets the message say "field 'gemm.overlap_p'" instead.
#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "costdsl/error.hpp"

namespace costdsl::detail {

// Throws DataError "ORIGIN: not valid JSON at field 'a.b' (...): <nlohmann message>".
inline nlohmann::json parse_json_naming_field(std::string_view text, std::string_view origin) {
  struct Level {
    bool array = false;
    std::string key;
    std::size_t index = 0;
  };
  std::vector<Level> open;
  auto path = [&] {
    std::string p;
    for (const Level& l : open) {
      if (l.array) p += fmt::format("[{}]", l.index);
      else if (!l.key.empty()) p += (p.empty() ? "" : ".") + l.key;
    }
    return p;
  };
  auto next_in_array = [&] {
    if (!open.empty() && open.back().array) ++open.back().index;
  };
  using E = nlohmann::json::parse_event_t;
  const nlohmann::json::parser_callback_t track = [&](int, E ev, nlohmann::json& parsed) {
    switch (ev) {
      case E::object_start: open.push_back({false, {}, 0}); break;
      case E::array_start: open.push_back({true, {}, 0}); break;
      case E::key: open.back().key = parsed.get<std::string>(); break;
      case E::object_end:
      case E::array_end:
        open.pop_back();
        next_in_array();
        break;
      case E::value: next_in_array(); break;
    }
    return true;
  };
  try {
    return nlohmann::json::parse(text, track);
  } catch (const nlohmann::json::exception& e) {  // parse_error, and out_of_range for a number too large
    const std::string where = path();
    std::string hint;
    if (const auto* pe = dynamic_cast<const nlohmann::json::parse_error*>(&e); pe != nullptr && pe->byte > 0) {
      // The literal the parser stopped in: NaN / Infinity are no JSON numbers.
      std::size_t start = std::min<std::size_t>(pe->byte, text.size()) - 1;
      while (start > 0 && text[start - 1] != ':' && text[start - 1] != '[' && text[start - 1] != ',') --start;
      const std::string_view rest = text.substr(start);
      const std::size_t first = rest.find_first_not_of(" \t\r\n");
      const std::string_view lit = first == std::string_view::npos ? std::string_view() : rest.substr(first);
      for (std::string_view bad : {"NaN", "nan", "Infinity", "-Infinity", "inf", "-inf"})
        if (lit.substr(0, bad.size()) == bad) {
          hint = fmt::format(" ({} is not a JSON number: a value must be finite)", bad);
          break;
        }
    }
    if (where.empty()) throw DataError(fmt::format("{}: not valid JSON{}: {}", origin, hint, e.what()));
    throw DataError(fmt::format("{}: not valid JSON at field '{}'{}: {}", origin, where, hint, e.what()));
  }
}

}  // namespace costdsl::detail
