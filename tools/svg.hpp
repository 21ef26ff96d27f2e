#pragma once
// Pictures of cost trees, as self-contained SVG text (no dependency beyond fmt):
//
//   icicle_svg  one iteration's tree: width ∝ each node's contribution to the
//               iteration time (inside a Scale, per-copy time × copies, as
//               print_tree shows it), one row per level, colour per kernel family.
//   sweep_svg   iteration time and tokens/s against decode batch size (log2 x),
//               one series per configuration, plus the first series' time by
//               kernel family as a stacked area.
//
// Both are plain strings built by SvgWriter, which escapes every text and
// attribute value and closes every element it opens.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <fstream>
#include <initializer_list>
#include <numeric>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "costdsl/coverage.hpp"
#include "costdsl/error.hpp"
#include "costdsl/kernel_def.hpp"
#include "costdsl/manifest.hpp"

namespace costdsl::cli {

// ---------------------------------------------------------------------------
// Kernel families

inline constexpr std::size_t n_families = 5;  // Family::gemm .. Family::other, in enum order
inline constexpr std::array<Family, n_families> all_families{Family::gemm, Family::attention, Family::memory,
                                                            Family::communication, Family::other};

constexpr std::size_t family_index(Family f) noexcept { return static_cast<std::size_t>(f); }

// A kernel kind's family by name, so the pictures need only the manifest (the
// kinds it names); tests/tools checks this agrees with every kernel's `family`.
inline Family family_of_kind(std::string_view kind) noexcept {
  if (kind == "gemm" || kind == "grouped_gemm" || kind == "fused_moe" || kind == "moe_router") return Family::gemm;
  if (kind.starts_with("attn_") || kind.starts_with("mla_")) return Family::attention;
  if (kind == "all_reduce" || kind == "all_gather" || kind == "reduce_scatter" || kind == "all_to_all" ||
      kind == "p2p")
    return Family::communication;
  return Family::memory;  // norms, activations, rope, embedding, KV append, moe_sum, sampler
}

inline std::string_view family_colour(Family f) noexcept {
  switch (f) {
    case Family::gemm: return "#4e79a7";
    case Family::attention: return "#f28e2b";
    case Family::memory: return "#59a14f";
    case Family::communication: return "#e15759";
    case Family::other: return "#9c9c9c";
  }
  return "#9c9c9c";
}

// The iteration time split by kernel family along the critical path, so that the
// parts add up to the total exactly (up to rounding) whatever the tree holds.
//
// Why not aggregate a row with only one family's slots non-zero? Under Sum and
// Scale both give the same numbers. Under Max and Parallel they do not: a masked
// aggregate is "the time this family would take alone", max over ranks of that
// family's time, and max(a+b) <= max(a)+max(b), so the masked totals over-count
// (their sum exceeds the iteration time) and cannot be stacked. Here a Sum adds
// its children, a Scale multiplies by n, and a Max / Parallel charges its time to
// its critical (slowest) child only, scaled by node time / child time (1 for a
// Max, 1/overlap for a Parallel, mean/max under FlatTree::MaxFold::mean).
inline std::array<double, n_families> family_times(const Manifest& m, std::span<const Metrics> node_metrics) {
  std::array<double, n_families> out{};
  const auto& nodes = m.tree.nodes();
  if (nodes.empty() || node_metrics.size() < nodes.size()) return out;
  auto walk = [&](std::size_t i, double w, auto& self) -> void {
    const FlatNode& n = nodes[i];
    switch (n.kind) {
      case NodeKind::leaf:
        out[family_index(family_of_kind(m.slots.at(n.first).kind))] += w * node_metrics[i].time_s;
        break;
      case NodeKind::labeled: self(n.first, w, self); break;
      case NodeKind::scale: self(n.first, w * n.param, self); break;
      case NodeKind::sum:
        for (std::uint32_t c = n.first; c < n.first + n.count; ++c) self(c, w, self);
        break;
      case NodeKind::max:
      case NodeKind::parallel: {
        std::uint32_t crit = n.first;
        for (std::uint32_t c = n.first; c < n.first + n.count; ++c)
          if (node_metrics[c].time_s > node_metrics[crit].time_s) crit = c;
        if (node_metrics[crit].time_s > 0) self(crit, w * node_metrics[i].time_s / node_metrics[crit].time_s, self);
        break;
      }
    }
  };
  walk(0, 1.0, walk);
  return out;
}

// ---------------------------------------------------------------------------
// SVG writing

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

// Writes a picture (or any text) to a file; an InputError names the path on failure.
inline void write_text_file(const std::string& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary);
  if (!f) throw InputError("cannot open '" + path + "' for writing");
  f << text;
  if (!f.flush()) throw InputError("cannot write '" + path + "'");
}

// ---------------------------------------------------------------------------
// Icicle chart of one iteration

struct IcicleOptions {
  std::string title = "Where one iteration's time goes";
  std::string subtitle;      // e.g. "llama3_70b, tp=8, h200_sxm: 1 prefill chunk, 64 decodes"
  double width = 1200;       // px
  double row_height = 26;    // px per tree level
  std::size_t max_lanes = 8; // a Max / Parallel with more children shows its slowest ones
  // Per slot, per copy: the hardware lower bound of each leaf (the slot row's
  // order). When given, each leaf shows bound / time as a strip and in its text.
  std::span<const double> slot_bounds_s = {};
};

namespace detail {

struct IcicleBox {
  double x = 0, y = 0, w = 0;
  std::string fill;
  std::string label;    // what the box shows, if it fits
  std::string time;     // its contribution, appended if it fits
  std::string tooltip;  // the full text
  std::string cls;
  std::size_t node = 0;
  double time_s = 0;       // contribution (width / px per second)
  double efficiency = -1;  // leaves with a bound: bound / time
};

struct IcicleLane {
  double x = 0, y = 0, w = 0, h = 0;
  bool critical = false;
  std::size_t node = 0;
  double time_s = 0;
  double slack_w = 0;  // how much earlier than the parent this lane finishes
  std::string tooltip;
};

}  // namespace detail

// Layout (documented in the picture's footnote too):
//   * x is time on one scale for the whole picture: a box's width is its node's
//     contribution to the iteration, i.e. its time × the copies of every Scale
//     above it. Children of a Sum tile their parent left to right.
//   * Sum nodes are transparent (their children sit on the Sum's own row), and a
//     Scale directly under a Labeled node is folded into that label as "×N", so
//     each row is a level of the model (model / block / kernel).
//   * A Max (ranks) or Parallel (streams) runs its children at the same time, so
//     its children do not tile it: each child is drawn as its own lane, stacked
//     below the parent, starting at the parent's left edge with its own width on
//     the same time scale. The slowest (critical) lane has a thick outline and a
//     "critical" note; the others show their slack as a dashed outline up to the
//     parent's end. A Parallel's extra width beyond its slowest stream is the
//     imperfect-overlap penalty (time / overlap).
inline std::string icicle_svg(const Manifest& m, std::span<const Metrics> node_metrics,
                              std::span<const Metrics> slot_row, const IcicleOptions& opt = {}) {
  const auto& nodes = m.tree.nodes();
  const double margin = 12, top = 92, row_h = opt.row_height, lane_gap = 5;
  const double plot_w = std::max(100.0, opt.width - 2 * margin);
  const double total = nodes.empty() || node_metrics.empty() ? 0.0 : node_metrics[0].time_s;
  const double px_per_s = total > 0 ? plot_w / total : 0.0;
  const bool with_bounds = !opt.slot_bounds_s.empty() && opt.slot_bounds_s.size() == slot_row.size();

  std::vector<detail::IcicleBox> boxes;
  std::vector<detail::IcicleLane> lanes;
  std::vector<std::pair<double, std::string>> notes;  // y, text: "+k more lanes"

  auto share = [&](double t) { return total > 0 ? 100 * t / total : 0.0; };
  auto time_text = [&](double per_copy, double copies) {
    const double t = per_copy * copies;
    std::string s = fmt::format("{} ({:.1f}%)", format_time(t), share(t));
    if (copies > 1) s += fmt::format(" = {} ×{}", format_time(per_copy), copies);
    return s;
  };
  auto add_box = [&](std::size_t i, double x, double y, double copies, std::string label, std::string fill,
                     std::string cls, std::string extra_tip) {
    detail::IcicleBox b;
    const double t = node_metrics[i].time_s;
    b.x = x;
    b.y = y;
    b.w = t * copies * px_per_s;
    b.node = i;
    b.time_s = t * copies;
    b.fill = std::move(fill);
    b.time = format_time(t * copies);
    b.tooltip = label + "\n" + time_text(t, copies) + extra_tip;
    b.label = std::move(label);
    b.cls = std::move(cls);
    boxes.push_back(std::move(b));
    return boxes.size() - 1;
  };

  // Returns the height (px) the subtree of node i takes, drawn from (x, y).
  auto place = [&](std::size_t i, double x, double y, double copies, auto& self) -> double {
    const FlatNode& n = nodes[i];
    switch (n.kind) {
      case NodeKind::leaf: {
        const SlotDescription& s = m.slots.at(n.first);
        const Family fam = family_of_kind(s.kind);
        const auto dot = s.name.rfind('.');
        const std::string short_name = dot == std::string::npos ? s.name : s.name.substr(dot + 1);
        std::string tip = fmt::format("\nkernel {} (family {})", s.kind, name(fam));
        const Metrics& r = slot_row.size() > n.first ? slot_row[n.first] : node_metrics[i];
        const auto flags = coverage_names(r.coverage);
        if (r.backend != no_backend && r.backend < s.backends.size()) tip += "\nbackend " + s.backends[r.backend];
        for (const auto& f : flags) tip += " [" + f + "]";
        double eff = -1;
        if (with_bounds && r.time_s > 0) {
          eff = opt.slot_bounds_s[n.first] / r.time_s;
          tip += fmt::format("\nlower bound {} per copy: {:.0f}% of it achieved", format_time(opt.slot_bounds_s[n.first]),
                             100 * eff);
        }
        const std::size_t b = add_box(i, x, y, copies, short_name, std::string(family_colour(fam)),
                                      "leaf family-" + std::string(name(fam)), tip);
        boxes[b].tooltip = s.name + boxes[b].tooltip.substr(short_name.size());
        boxes[b].efficiency = eff;
        return row_h;
      }
      case NodeKind::sum: {
        double h = 0, cx = x;
        for (std::uint32_t c = n.first; c < n.first + n.count; ++c) {
          h = std::max(h, self(c, cx, y, copies, self));
          cx += node_metrics[c].time_s * copies * px_per_s;
        }
        return h;
      }
      case NodeKind::labeled: {
        std::string label = m.tree.labels()[i];
        std::size_t child = n.first;
        double child_copies = copies;
        if (nodes[child].kind == NodeKind::scale) {  // fold "×N" into the label
          label += fmt::format(" ×{}", nodes[child].param);
          child_copies *= nodes[child].param;
          child = nodes[child].first;
        }
        add_box(i, x, y, copies, label, "#d4d4d4", "composite labeled", "");
        return row_h + self(child, x, y + row_h, child_copies, self);
      }
      case NodeKind::scale:
        add_box(i, x, y, copies, fmt::format("×{}", n.param), "#e6e6e6", "composite scale", "");
        return row_h + self(n.first, x, y + row_h, copies * n.param, self);
      case NodeKind::max:
      case NodeKind::parallel: {
        const bool is_max = n.kind == NodeKind::max;
        std::uint32_t crit = n.first;
        for (std::uint32_t c = n.first; c < n.first + n.count; ++c)
          if (node_metrics[c].time_s > node_metrics[crit].time_s) crit = c;
        std::string label = is_max ? fmt::format("max over {} ranks", n.ranks())
                                   : fmt::format("{} parallel streams (overlap {})", n.count, n.param);
        std::string tip = fmt::format("\nchildren run concurrently; critical child takes {}",
                                      format_time(node_metrics[crit].time_s * copies));
        add_box(i, x, y, copies, label, "#c9c9e8", is_max ? "composite max" : "composite parallel", tip);
        // The slowest max_lanes children, in their own order.
        std::vector<std::uint32_t> shown(n.count);
        std::iota(shown.begin(), shown.end(), n.first);
        if (shown.size() > std::max<std::size_t>(opt.max_lanes, 1)) {
          std::stable_sort(shown.begin(), shown.end(),
                           [&](auto a, auto b) { return node_metrics[a].time_s > node_metrics[b].time_s; });
          shown.resize(std::max<std::size_t>(opt.max_lanes, 1));
          std::sort(shown.begin(), shown.end());
        }
        const double parent_w = node_metrics[i].time_s * copies * px_per_s;
        double ly = y + row_h + lane_gap;
        for (const std::uint32_t c : shown) {
          const std::size_t lane_index = lanes.size();
          lanes.emplace_back();
          const double h = self(c, x, ly, copies, self);
          detail::IcicleLane& lane = lanes[lane_index];
          lane.x = x;
          lane.y = ly;
          lane.w = node_metrics[c].time_s * copies * px_per_s;
          lane.h = h;
          lane.critical = c == crit;
          lane.node = c;
          lane.time_s = node_metrics[c].time_s * copies;
          lane.slack_w = std::max(0.0, parent_w - lane.w);
          lane.tooltip = fmt::format("{} {} of {}: {}{}", is_max ? "rank" : "stream", c - n.first, n.count,
                                     format_time(node_metrics[c].time_s * copies),
                                     lane.critical ? " (critical: sets the parent's time)"
                                                   : fmt::format(", idle {} before the parent ends",
                                                                 format_time(lane.slack_w / px_per_s)));
          ly += h + lane_gap;
        }
        if (shown.size() < n.count) {
          double rest_max = 0;
          for (std::uint32_t c = n.first; c < n.first + n.count; ++c)
            if (std::find(shown.begin(), shown.end(), c) == shown.end())
              rest_max = std::max(rest_max, node_metrics[c].time_s * copies);
          notes.emplace_back(ly + 12, fmt::format("… {} more {} not drawn, each ≤ {}", n.count - shown.size(),
                                                  is_max ? "ranks" : "streams", format_time(rest_max)));
          ly += 18;
        }
        return ly - y;
      }
    }
    return 0;
  };

  double tree_h = 0;
  if (!nodes.empty() && node_metrics.size() >= nodes.size() && total > 0) tree_h = place(0, margin, top, 1.0, place);

  const double axis_y = top + tree_h + 8;
  const double height = axis_y + 92;
  SvgWriter svg(opt.width, height);
  svg.element("rect", {{"width", "100%"}, {"height", "100%"}, {"fill", "white"}});
  svg.text(margin, 24, opt.title, {{"font-size", "16"}, {"font-weight", "bold"}, {"class", "title"}});
  std::string sub = opt.subtitle.empty() ? "" : opt.subtitle + "  —  ";
  sub += "total " + format_time(total);
  if (with_bounds) {
    std::vector<Metrics> bound_row(slot_row.size());
    for (std::size_t s = 0; s < bound_row.size(); ++s) bound_row[s].time_s = opt.slot_bounds_s[s];
    const double bound = m.tree.aggregate(bound_row).time_s;
    sub += fmt::format(";  hardware lower bound {} (bound / time = {:.0f}%)", format_time(bound),
                       total > 0 ? 100 * bound / total : 0.0);
  }
  svg.text(margin, 43, sub, {{"font-size", "12"}, {"fill", "#333"}, {"class", "subtitle"}});

  // Legend: families with their critical-path time, then the composite kinds.
  {
    const auto fam = family_times(m, node_metrics);
    double lx = margin;
    const double ly = 58;
    svg.open("g", {{"class", "legend"}});
    for (const Family f : all_families) {
      const double t = fam[family_index(f)];
      if (f == Family::other && t == 0) continue;
      const std::string s = fmt::format("{} {} ({:.1f}%)", name(f), format_time(t), share(t));
      svg.element("rect", {{"x", num(lx)}, {"y", num(ly)}, {"width", "12"}, {"height", "12"},
                           {"fill", std::string(family_colour(f))}, {"class", "legend-family"}});
      svg.text(lx + 16, ly + 10, s);
      lx += 24 + 6.2 * static_cast<double>(utf8_length(s));
    }
    svg.element("rect", {{"x", num(lx)}, {"y", num(ly)}, {"width", "12"}, {"height", "12"}, {"fill", "#d4d4d4"}});
    svg.text(lx + 16, ly + 10, "labeled block");
    lx += 110;
    if (!lanes.empty()) {
      svg.element("rect", {{"x", num(lx)}, {"y", num(ly)}, {"width", "12"}, {"height", "12"}, {"fill", "#c9c9e8"}});
      svg.text(lx + 16, ly + 10, "max / parallel");
      lx += 110;
      svg.element("rect", {{"x", num(lx)}, {"y", num(ly)}, {"width", "12"}, {"height", "12"}, {"fill", "none"},
                           {"stroke", "#000"}, {"stroke-width", "2.5"}});
      svg.text(lx + 16, ly + 10, "critical lane");
      lx += 100;
    }
    if (with_bounds) {
      svg.element("rect", {{"x", num(lx)}, {"y", num(ly + 8)}, {"width", "12"}, {"height", "4"}, {"fill", "#222"}});
      svg.text(lx + 16, ly + 10, "strip: lower bound / time");
    }
    svg.close();
  }

  // Lanes first (behind the boxes), then boxes.
  svg.open("g", {{"class", "lanes"}});
  for (const auto& l : lanes) {
    svg.open("g", {{"class", l.critical ? "lane critical" : "lane"},
                   {"data-node", std::to_string(l.node)},
                   {"data-time-ms", fmt::format("{:.9g}", l.time_s * 1e3)}});
    svg.title(l.tooltip);
    svg.element("rect", {{"x", num(l.x - 1.5)}, {"y", num(l.y - 1.5)}, {"width", num(l.w + 3)},
                         {"height", num(l.h + 3)}, {"fill", "none"}, {"stroke", l.critical ? "#000" : "#888"},
                         {"stroke-width", l.critical ? "2.5" : "0.8"}});
    if (!l.critical && l.slack_w > 0.5)
      svg.element("rect", {{"x", num(l.x + l.w)}, {"y", num(l.y)}, {"width", num(l.slack_w)},
                           {"height", num(row_h - 2)}, {"fill", "#f7f7f7"}, {"stroke", "#aaa"},
                           {"stroke-dasharray", "3,2"}, {"class", "slack"}});
    svg.close();
  }
  svg.close();

  svg.open("g", {{"class", "icicle"}});
  constexpr double char_w = 6.4;  // average glyph width at 11 px
  for (const auto& b : boxes) {
    svg.open("g", {{"class", b.cls},
                   {"data-node", std::to_string(b.node)},
                   {"data-time-ms", fmt::format("{:.9g}", b.time_s * 1e3)}});
    svg.title(b.tooltip);
    svg.element("rect", {{"x", num(b.x)}, {"y", num(b.y)}, {"width", num(std::max(b.w - 1, 0.0))},
                         {"height", num(row_h - 2)}, {"fill", b.fill}, {"stroke", "#fff"}, {"stroke-width", "0.5"}});
    if (b.efficiency >= 0) {
      const double e = std::clamp(b.efficiency, 0.0, 1.0);
      svg.element("rect", {{"x", num(b.x)}, {"y", num(b.y + row_h - 6)}, {"width", num(std::max(b.w - 1, 0.0) * e)},
                           {"height", "4"}, {"fill", "#222"}, {"fill-opacity", "0.7"}, {"class", "efficiency"}});
    }
    const auto fits = static_cast<std::size_t>(std::max(0.0, (b.w - 8) / char_w));
    std::string shown = b.label + "  " + b.time;
    if (b.efficiency >= 0) shown += fmt::format("  LB {:.0f}%", 100 * b.efficiency);
    if (utf8_length(shown) > fits) shown = b.label + "  " + b.time;
    if (utf8_length(shown) > fits) shown = fit_text(b.label, fits);
    if (utf8_length(shown) < 3) shown.clear();
    if (!shown.empty()) {
      const bool dark = b.cls.starts_with("leaf");
      svg.text(b.x + 4, b.y + row_h / 2 + 2, shown,
               {{"fill", dark ? "#fff" : "#111"}, {"class", "label"}, {"pointer-events", "none"}});
    }
    svg.close();
  }
  svg.close();
  // "critical" notes on top of the boxes: inside the lane's right end when it is wide, else just after it.
  for (const auto& l : lanes) {
    if (!l.critical) continue;
    const bool inside = l.w > 160;  // a dark tag over the lane's right end, else just after the lane
    const double tx = inside ? l.x + l.w - 50 : l.x + l.w + 3;
    svg.element("rect", {{"x", num(tx)}, {"y", num(l.y + row_h / 2 - 8)}, {"width", "47"}, {"height", "14"},
                         {"rx", "3"}, {"fill", "#000"}, {"fill-opacity", "0.8"}});
    svg.text(tx + 23.5, l.y + row_h / 2 + 3, "critical",
             {{"font-weight", "bold"}, {"font-size", "10"}, {"text-anchor", "middle"}, {"fill", "#fff"},
              {"class", "critical-note"}, {"pointer-events", "none"}});
  }
  for (const auto& [y, t] : notes) svg.text(margin + 4, y, t, {{"fill", "#555"}, {"font-style", "italic"}});

  // Time axis.
  svg.open("g", {{"class", "axis"}});
  svg.element("line", {{"x1", num(margin)}, {"y1", num(axis_y)}, {"x2", num(margin + plot_w)}, {"y2", num(axis_y)},
                       {"stroke", "#333"}});
  for (const double t : nice_ticks(total * 1e3, 8)) {
    if (t > total * 1e3 * (1 + 1e-9)) break;
    const double x = margin + t * 1e-3 * px_per_s;
    svg.element("line", {{"x1", num(x)}, {"y1", num(axis_y)}, {"x2", num(x)}, {"y2", num(axis_y + 5)},
                         {"stroke", "#333"}});
    svg.text(x, axis_y + 17, fmt::format("{:g}", t), {{"text-anchor", "middle"}});
  }
  svg.text(margin + plot_w / 2, axis_y + 33, "time in the iteration (ms)", {{"text-anchor", "middle"}});
  svg.close();
  svg.text(margin, axis_y + 55,
           "Width ∝ each node's contribution to the iteration (Scale copies included). Sum nodes are not drawn; "
           "a Scale under a label shows as ×N.",
           {{"fill", "#555"}, {"font-size", "10"}});
  if (!lanes.empty())
    svg.text(margin, axis_y + 69,
           "Max / Parallel children run concurrently: each is a lane starting at its parent's left edge on the "
           "same time scale; the slowest is the critical lane, dashed boxes are idle time.",
           {{"fill", "#555"}, {"font-size", "10"}});
  if (total <= 0) svg.text(margin, top + 16, "(the iteration takes no time: nothing to draw)");
  return svg.finish();
}

// ---------------------------------------------------------------------------
// Sweep plot

struct SweepPoint {
  double batch = 0;         // decode requests in the iteration (x, log2 axis; must be > 0)
  double time_s = 0;        // iteration time
  double tokens_per_s = 0;  // new tokens / time
  std::array<double, n_families> family_s{};  // time by family (critical path), Family order
};

struct SweepSeries {
  std::string name;  // e.g. "h200_sxm tp=8"
  std::vector<SweepPoint> points;
};

struct SweepPlotOptions {
  std::string title = "Decode batch sweep";
  std::string subtitle;  // e.g. "llama3_70b, KV 2048, timing auto"
  double width = 1000;
};

inline std::string_view series_colour(std::size_t i) noexcept {
  static constexpr std::string_view palette[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#8c564b",
                                                 "#e377c2", "#17becf", "#bcbd22", "#ff7f0e", "#7f7f7f"};
  return palette[i % std::size(palette)];
}

inline std::string sweep_svg(std::span<const SweepSeries> series, const SweepPlotOptions& opt = {}) {
  const double left = 78, legend_w = 230, right = 16;
  const double plot_w = std::max(200.0, opt.width - left - legend_w - right);
  const double panel_h = 210, panel_gap = 78, top = 84;
  const double height = top + 3 * panel_h + 2 * panel_gap + 70;
  SvgWriter svg(opt.width, height);
  svg.element("rect", {{"width", "100%"}, {"height", "100%"}, {"fill", "white"}});
  svg.text(left, 26, opt.title, {{"font-size", "16"}, {"font-weight", "bold"}, {"class", "title"}});
  if (!opt.subtitle.empty()) svg.text(left, 45, opt.subtitle, {{"font-size", "12"}, {"fill", "#333"}});

  // x: log2(batch) over every series.
  double lo = INFINITY, hi = -INFINITY, t_max = 0, tput_max = 0;
  for (const auto& s : series)
    for (const auto& p : s.points) {
      if (!(p.batch > 0)) continue;
      lo = std::min(lo, std::log2(p.batch));
      hi = std::max(hi, std::log2(p.batch));
      t_max = std::max(t_max, p.time_s * 1e3);
      tput_max = std::max(tput_max, p.tokens_per_s);
    }
  if (!(lo <= hi)) {
    svg.text(left, top + 20, "(no points to plot)");
    return svg.finish();
  }
  lo = std::floor(lo);
  hi = std::ceil(hi);
  if (hi - lo < 1) {
    lo -= 1;
    hi += 1;
  }
  auto px = [&](double batch) { return left + (std::log2(batch) - lo) / (hi - lo) * plot_w; };

  struct Panel {
    double y0;
    std::vector<double> ticks;
    double y_max() const { return ticks.back(); }
    double py(double v, double h) const { return y0 + h - (y_max() > 0 ? v / y_max() : 0) * h; }
  };
  auto draw_axes = [&](const Panel& p, const std::string& title, const std::string& y_label, bool si_ticks) {
    svg.open("g", {{"class", "axes"}});
    svg.text(left, p.y0 - 10, title, {{"font-size", "13"}, {"font-weight", "bold"}});
    for (const double t : p.ticks) {
      const double y = p.py(t, panel_h);
      svg.element("line", {{"x1", num(left)}, {"y1", num(y)}, {"x2", num(left + plot_w)}, {"y2", num(y)},
                           {"stroke", t == 0 ? "#333" : "#e3e3e3"}});
      svg.text(left - 6, y + 4, si_ticks ? format_si(t) : fmt::format("{:g}", t), {{"text-anchor", "end"}});
    }
    const int step = hi - lo > 12 ? 2 : 1;
    for (int e = static_cast<int>(lo); e <= static_cast<int>(hi); e += step) {
      const double x = px(std::exp2(e));
      svg.element("line", {{"x1", num(x)}, {"y1", num(p.y0)}, {"x2", num(x)}, {"y2", num(p.y0 + panel_h + 5)},
                           {"stroke", "#e3e3e3"}});
      svg.text(x, p.y0 + panel_h + 17, format_si(std::exp2(e)), {{"text-anchor", "middle"}});
    }
    svg.element("line", {{"x1", num(left)}, {"y1", num(p.y0)}, {"x2", num(left)}, {"y2", num(p.y0 + panel_h)},
                         {"stroke", "#333"}});
    svg.text(left + plot_w / 2, p.y0 + panel_h + 33, "decode batch size (requests per iteration, log₂ scale)",
             {{"text-anchor", "middle"}, {"fill", "#333"}});
    const double cy = p.y0 + panel_h / 2;
    svg.text(18, cy, y_label,
             {{"text-anchor", "middle"}, {"fill", "#333"}, {"transform", fmt::format("rotate(-90 18 {})", num(cy))}});
    svg.close();
  };
  auto polyline = [&](const SweepSeries& s, const Panel& p, auto value, const char* cls, std::string_view colour,
                      auto tooltip) {
    std::vector<const SweepPoint*> pts;
    for (const auto& q : s.points)
      if (q.batch > 0) pts.push_back(&q);
    std::stable_sort(pts.begin(), pts.end(), [](auto a, auto b) { return a->batch < b->batch; });
    std::string d;
    for (const auto* q : pts) d += fmt::format("{}{},{} ", d.empty() ? "M" : "L", num(px(q->batch)), num(p.py(value(*q), panel_h)));
    svg.open("g", {{"class", std::string("series ") + cls}, {"data-series", s.name}});
    svg.element("path", {{"d", d}, {"fill", "none"}, {"stroke", std::string(colour)}, {"stroke-width", "2"}});
    for (const auto* q : pts) {
      svg.open("circle", {{"class", "point"}, {"cx", num(px(q->batch))}, {"cy", num(p.py(value(*q), panel_h))},
                          {"r", "3.2"}, {"fill", std::string(colour)}});
      svg.title(tooltip(*q));
      svg.close();
    }
    svg.close();
  };
  auto tip = [](const SweepSeries& s) {
    return [&s](const SweepPoint& q) {
      return fmt::format("{}: batch {}, {} per iteration, {} tokens/s", s.name, q.batch, format_time(q.time_s),
                         format_si(q.tokens_per_s));
    };
  };

  // Panel 1: iteration time.
  const Panel p_time{top, nice_ticks(t_max, 5)};
  draw_axes(p_time, "Iteration time", "iteration time (ms)", false);
  for (std::size_t i = 0; i < series.size(); ++i)
    polyline(series[i], p_time, [](const SweepPoint& q) { return q.time_s * 1e3; }, "time", series_colour(i),
             tip(series[i]));

  // Panel 2: throughput.
  const Panel p_tput{top + panel_h + panel_gap, nice_ticks(tput_max, 5)};
  draw_axes(p_tput, "Throughput", "new tokens / s", true);
  for (std::size_t i = 0; i < series.size(); ++i)
    polyline(series[i], p_tput, [](const SweepPoint& q) { return q.tokens_per_s; }, "throughput", series_colour(i),
             tip(series[i]));

  // Panel 3: the first series' time by family, stacked (Family order, gemm at the bottom).
  const SweepSeries& first = series.empty() ? SweepSeries{} : series[0];
  std::vector<const SweepPoint*> pts;
  for (const auto& q : first.points)
    if (q.batch > 0) pts.push_back(&q);
  std::stable_sort(pts.begin(), pts.end(), [](auto a, auto b) { return a->batch < b->batch; });
  double stack_max = 0;
  for (const auto* q : pts) stack_max = std::max(stack_max, 1e3 * std::accumulate(q->family_s.begin(), q->family_s.end(), 0.0));
  const Panel p_fam{top + 2 * (panel_h + panel_gap), nice_ticks(std::max(stack_max, t_max > 0 ? 0.0 : 1.0), 5)};
  draw_axes(p_fam, "Where the time goes: " + first.name + " (by kernel family, critical path)", "time (ms)", false);
  std::array<bool, n_families> family_used{};
  {
    std::vector<double> below(pts.size(), 0.0);
    svg.open("g", {{"class", "stack"}});
    for (const Family f : all_families) {
      const std::size_t k = family_index(f);
      bool any = false;
      for (const auto* q : pts) any = any || q->family_s[k] > 0;
      if (!any) continue;
      family_used[k] = true;
      std::string d;
      for (std::size_t j = 0; j < pts.size(); ++j)
        d += fmt::format("{}{},{} ", j == 0 ? "M" : "L", num(px(pts[j]->batch)),
                         num(p_fam.py(below[j] + 1e3 * pts[j]->family_s[k], panel_h)));
      for (std::size_t j = pts.size(); j-- > 0;)
        d += fmt::format("L{},{} ", num(px(pts[j]->batch)), num(p_fam.py(below[j], panel_h)));
      d += "Z";
      svg.open("path", {{"class", "area"}, {"data-family", std::string(name(f))}, {"d", d},
                        {"fill", std::string(family_colour(f))}, {"fill-opacity", "0.85"}, {"stroke", "#fff"},
                        {"stroke-width", "0.5"}});
      std::string t = std::string(name(f)) + ":";
      for (const auto* q : pts)
        t += fmt::format(" B={} {} ({:.0f}%);", q->batch, format_time(q->family_s[k]),
                         q->time_s > 0 ? 100 * q->family_s[k] / q->time_s : 0.0);
      svg.title(t);
      svg.close();
      for (std::size_t j = 0; j < pts.size(); ++j) below[j] += 1e3 * pts[j]->family_s[k];
    }
    svg.close();
  }

  // Legend column.
  const double lx = left + plot_w + 24;
  svg.open("g", {{"class", "legend"}});
  double ly = top;
  svg.text(lx, ly, "Configurations", {{"font-weight", "bold"}});
  ly += 18;
  for (std::size_t i = 0; i < series.size(); ++i) {
    svg.open("g", {{"class", "legend-series"}});
    svg.element("line", {{"x1", num(lx)}, {"y1", num(ly - 4)}, {"x2", num(lx + 22)}, {"y2", num(ly - 4)},
                         {"stroke", std::string(series_colour(i))}, {"stroke-width", "2"}});
    svg.element("circle", {{"cx", num(lx + 11)}, {"cy", num(ly - 4)}, {"r", "3.2"},
                           {"fill", std::string(series_colour(i))}});
    svg.text(lx + 28, ly, fit_text(series[i].name, 30));
    svg.close();
    ly += 17;
  }
  ly = p_fam.y0;
  svg.text(lx, ly, "Kernel families", {{"font-weight", "bold"}});
  ly += 18;
  for (std::size_t k = n_families; k-- > 0;) {  // top of the stack first
    if (!family_used[k]) continue;
    svg.element("rect", {{"x", num(lx)}, {"y", num(ly - 10)}, {"width", "12"}, {"height", "12"},
                         {"fill", std::string(family_colour(all_families[k]))}, {"class", "legend-family"}});
    svg.text(lx + 18, ly, std::string(name(all_families[k])));
    ly += 17;
  }
  ly += 6;
  for (const char* line : {"Each iteration's time split along its", "critical path: the parts add up to", "the total."}) {
    svg.text(lx, ly, line, {{"fill", "#555"}, {"font-size", "10"}});
    ly += 13;
  }
  svg.close();
  return svg.finish();
}

}  // namespace costdsl::cli
