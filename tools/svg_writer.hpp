#pragma once
// SVG as self-contained text (no dependency beyond fmt): SvgWriter escapes every text and
// attribute value and closes every element it opens; plus the text and number formats
// the pictures share, and writing a picture to a file.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <fstream>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "costdsl/error.hpp"

namespace costdsl::cli {

inline std::string xml_escape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (const char ch : s) {
    switch (ch) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default:
        // XML 1.0 forbids most control characters; keep tab and newline.
        if (static_cast<unsigned char>(ch) < 0x20 && ch != '\t' && ch != '\n') {
          out += ' ';
        } else {
          out += ch;
        }
    }
  }
  return out;
}

// Characters (UTF-8 code points) in s, and s cut to at most n of them.
inline std::size_t utf8_length(std::string_view s) noexcept {
  std::size_t n = 0;
  for (const char ch : s)
    if ((static_cast<unsigned char>(ch) & 0xC0) != 0x80) ++n;
  return n;
}
inline std::string utf8_prefix(std::string_view s, std::size_t n) {
  std::size_t seen = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80) {
      if (seen == n) return std::string(s.substr(0, i));
      ++seen;
    }
  }
  return std::string(s);
}
// s if it has at most n characters, else its first n-1 and "…"; empty if n < 2.
inline std::string fit_text(std::string_view s, std::size_t n) {
  if (utf8_length(s) <= n) return std::string(s);
  if (n < 2) return {};
  return utf8_prefix(s, n - 1) + "…";
}

// A number for an attribute: short and locale-free.
inline std::string num(double v) {
  if (!std::isfinite(v)) return "0";
  std::string s = fmt::format("{:.2f}", v);
  while (!s.empty() && s.back() == '0') s.pop_back();
  if (!s.empty() && s.back() == '.') s.pop_back();
  return s == "-0" ? "0" : s;
}

// A time for people: "171 ms", "0.1568 ms", "42.5 µs".
inline std::string format_time(double seconds) {
  if (seconds != 0 && std::abs(seconds) < 1e-4) return fmt::format("{:.3g} µs", seconds * 1e6);
  return fmt::format("{:.4g} ms", seconds * 1e3);
}

// 12345 -> "12.3k": axis ticks and throughput.
inline std::string format_si(double v) {
  static constexpr const char* prefixes[] = {"", "k", "M", "G", "T"};
  int i = 0;
  while (std::abs(v) >= 1000 && i < 4) {
    v /= 1000;
    ++i;
  }
  return fmt::format("{:.3g}{}", v, prefixes[i]);
}

// "Nice" axis ticks (1, 2, 5 × 10^k steps) covering [0, hi].
inline std::vector<double> nice_ticks(double hi, int target = 5) {
  if (!(hi > 0) || !std::isfinite(hi)) return {0.0, 1.0};
  const double raw = hi / target;
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  double step = mag;
  for (const double f : {1.0, 2.0, 2.5, 5.0, 10.0})
    if (f * mag >= raw) {
      step = f * mag;
      break;
    }
  std::vector<double> ticks;
  for (int k = 0;; ++k) {
    ticks.push_back(k * step);
    if (k * step >= hi * (1 - 1e-9)) break;
  }
  return ticks;
}

// Builds an SVG document; every element opened is closed by finish().
class SvgWriter {
 public:
  using Attrs = std::initializer_list<std::pair<std::string_view, std::string>>;

  SvgWriter(double width, double height) {
    out_ += "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
    open("svg", {{"xmlns", "http://www.w3.org/2000/svg"},
                 {"width", num(width)},
                 {"height", num(height)},
                 {"viewBox", "0 0 " + num(width) + " " + num(height)},
                 {"font-family", "Helvetica, Arial, sans-serif"},
                 {"font-size", "11"}});
  }

  void open(std::string_view tag, Attrs attrs = {}) {
    start_tag(tag, attrs);
    out_ += ">\n";
    stack_.emplace_back(tag);
  }
  void close() {
    if (stack_.size() <= 1) return;  // the root closes in finish()
    out_ += "</" + stack_.back() + ">\n";
    stack_.pop_back();
  }
  // <tag .../>
  void element(std::string_view tag, Attrs attrs) {
    start_tag(tag, attrs);
    out_ += "/>\n";
  }
  // <tag ...>text</tag>
  void element(std::string_view tag, Attrs attrs, std::string_view text) {
    start_tag(tag, attrs);
    out_ += ">" + xml_escape(text) + "</" + std::string(tag) + ">\n";
  }
  void title(std::string_view text) { element("title", {}, text); }
  void text(double x, double y, std::string_view s, Attrs extra = {}) {
    start_tag("text", {{"x", num(x)}, {"y", num(y)}});
    attributes(extra);
    out_ += ">" + xml_escape(s) + "</text>\n";
  }

  std::string finish() {
    while (!stack_.empty()) {
      out_ += "</" + stack_.back() + ">\n";
      stack_.pop_back();
    }
    return std::move(out_);
  }

 private:
  void start_tag(std::string_view tag, Attrs attrs) {
    out_ += "<";
    out_ += tag;
    attributes(attrs);
  }
  void attributes(Attrs attrs) {
    for (const auto& [k, v] : attrs) out_ += fmt::format(" {}=\"{}\"", k, xml_escape(v));
  }

  std::string out_;
  std::vector<std::string> stack_;
};

// Writes a picture (or any text) to a file; an InputError names the path on failure,
// and the option that named it when `flag` is given ("--html: cannot open ...").
inline void write_text_file(const std::string& path, const std::string& text, std::string_view flag = {}) {
  const std::string who = flag.empty() ? std::string() : std::string(flag) + ": ";
  std::ofstream f(path, std::ios::binary);
  if (!f) throw InputError(who + "cannot open '" + path + "' for writing");
  f << text;
  if (!f.flush()) throw InputError(who + "cannot write '" + path + "'");
}

inline std::string_view series_colour(std::size_t i) noexcept {
  static constexpr std::string_view palette[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#8c564b",
                                                 "#e377c2", "#17becf", "#bcbd22", "#ff7f0e", "#7f7f7f"};
  return palette[i % std::size(palette)];
}

}  // namespace costdsl::cli
