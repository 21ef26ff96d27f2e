#pragma once
// A request trace as CSV: header `arrival_s,input_tokens,output_tokens`, one request per
// line, arrivals non-decreasing. Strict: anything else is an InputError naming file:line.
#include <charconv>
#include <cmath>
#include <fstream>
#include <istream>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "costdsl/error.hpp"
#include "costdsl/serve/detail/text.hpp"
#include "costdsl/serve/request.hpp"

namespace costdsl::serve {

namespace detail {
template <class T>
T parse_field(std::string_view s, const std::string& where, std::string_view column) {
  T v{};
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc{} || end != s.data() + s.size())
    throw InputError(where + ": " + std::string(column) + " '" + std::string(s) + "' is not a valid " +
                     (std::is_integral_v<T> ? "non-negative integer" : "number"));
  return v;
}
}  // namespace detail

// Reads a whole trace from `in`; `name` is the file name the messages use.
inline std::vector<Request> parse_trace(std::istream& in, const std::string& name) {
  std::vector<Request> out;
  std::string line;
  std::size_t lineno = 0;
  auto strip_cr = [](std::string& s) {
    if (!s.empty() && s.back() == '\r') s.pop_back();
  };
  if (!std::getline(in, line)) throw InputError(name + ":1: empty trace (expected a header line)");
  ++lineno;
  strip_cr(line);
  if (line != "arrival_s,input_tokens,output_tokens")
    throw InputError(name + ":1: header must be 'arrival_s,input_tokens,output_tokens', got '" + line + "'");
  while (std::getline(in, line)) {
    ++lineno;
    strip_cr(line);
    const std::string where = name + ":" + std::to_string(lineno);
    if (line.empty()) throw InputError(where + ": empty line");
    std::string_view rest = line;
    std::string_view f[3];
    for (int i = 0; i < 3; ++i) {
      const auto comma = rest.find(',');
      if ((i < 2) != (comma != std::string_view::npos))
        throw InputError(where + ": expected 3 comma-separated fields, got '" + line + "'");
      f[i] = rest.substr(0, comma);
      rest = i < 2 ? rest.substr(comma + 1) : std::string_view{};
    }
    Request r{detail::parse_field<double>(f[0], where, "arrival_s"),
              detail::parse_field<std::uint32_t>(f[1], where, "input_tokens"),
              detail::parse_field<std::uint32_t>(f[2], where, "output_tokens")};
    if (!std::isfinite(r.arrival_s) || r.arrival_s < 0)
      throw InputError(where + ": arrival_s " + std::string(f[0]) + " must be finite and >= 0");
    if (!out.empty() && r.arrival_s < out.back().arrival_s)
      throw InputError(where + ": arrival_s " + std::string(f[0]) + " is earlier than the previous line's " +
                       detail::shortest(out.back().arrival_s));
    if (r.input_tokens == 0 || r.output_tokens == 0)
      throw InputError(where + ": input_tokens and output_tokens must be at least 1");
    out.push_back(r);
  }
  if (out.empty()) throw InputError(name + ": trace has a header but no requests");
  return out;
}

inline std::vector<Request> load_trace(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError(path + ": cannot open trace");
  return parse_trace(in, path);
}

}  // namespace costdsl::serve
