#pragma once
// sweep_svg: iteration time and tokens/s against decode batch size (log2 x), one series
// per configuration, plus the first series' time by kernel family as a stacked area.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "family_times.hpp"
#include "svg_writer.hpp"

namespace costdsl::cli {

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
