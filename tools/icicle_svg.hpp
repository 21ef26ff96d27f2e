#pragma once
// icicle_svg: one iteration's cost tree as a picture: width ∝ each node's contribution
// to the iteration time (inside a Scale, per-copy time × copies, as print_tree shows
// it), one row per level, colour per kernel family (the manifest's).
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "costdsl/coverage.hpp"
#include "costdsl/manifest.hpp"
#include "costdsl/metrics.hpp"
#include "family_times.hpp"
#include "svg_writer.hpp"

namespace costdsl::cli {

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
        const Family fam = s.family;
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
      case NodeKind::fanout:  // not in a twin (a Fanout lowers to a max): drawn as one
      case NodeKind::parallel: {
        const bool is_max = n.kind != NodeKind::parallel;
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

}  // namespace costdsl::cli
