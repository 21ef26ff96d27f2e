#pragma once
// The picture of a deployment search: tokens/s/GPU against tokens/s/user, one Pareto
// frontier per mode (aggregated, disaggregated) over the deployments that meet the SLA,
// the other deployments that meet it as small dots and those that miss it in grey.
// Built with svg_writer.hpp's SvgWriter (every text and attribute escaped, elements closed).
#include <algorithm>
#include <span>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "svg_writer.hpp"

namespace costdsl::cli {

struct ParetoPoint {
  double per_user = 0;  // x: tokens/s/user
  double per_gpu = 0;   // y: tokens/s/GPU
  std::string label;    // the deployment, for the tooltip
};

struct ParetoSeries {
  std::string name;                  // "aggregated", "disaggregated"
  std::vector<ParetoPoint> frontier;  // by per_user ascending
  std::vector<ParetoPoint> meeting;   // the other deployments meeting the SLA
  std::vector<ParetoPoint> missing;   // deployments that ran to the end and missed it
};

struct ParetoPlotOptions {
  std::string title = "Deployments: throughput per GPU against speed per user";
  std::string subtitle;
  std::string sla_line;  // e.g. "SLA p90: TTFT ≤ 300 ms, TPOT ≤ 20 ms"
  double width = 1000, height = 600;
};

inline std::string pareto_svg(std::span<const ParetoSeries> series, const ParetoPlotOptions& opt = {}) {
  const double left = 84, right = 250, top = 86, bottom = 64;
  const double plot_w = std::max(200.0, opt.width - left - right), plot_h = std::max(150.0, opt.height - top - bottom);
  SvgWriter svg(opt.width, opt.height);
  svg.element("rect", {{"width", "100%"}, {"height", "100%"}, {"fill", "white"}});
  svg.text(left, 26, opt.title, {{"font-size", "16"}, {"font-weight", "bold"}, {"class", "title"}});
  if (!opt.subtitle.empty()) svg.text(left, 45, opt.subtitle, {{"font-size", "12"}, {"fill", "#333"}});
  if (!opt.sla_line.empty()) svg.text(left, 62, opt.sla_line, {{"font-size", "12"}, {"fill", "#333"}});

  double x_max = 0, y_max = 0;
  for (const auto& s : series)
    for (const auto* pts : {&s.frontier, &s.meeting, &s.missing})
      for (const auto& p : *pts) {
        if (std::isfinite(p.per_user)) x_max = std::max(x_max, p.per_user);
        if (std::isfinite(p.per_gpu)) y_max = std::max(y_max, p.per_gpu);
      }
  const std::vector<double> xt = nice_ticks(x_max, 6), yt = nice_ticks(y_max, 6);
  const auto px = [&](double v) { return left + (xt.back() > 0 ? v / xt.back() : 0) * plot_w; };
  const auto py = [&](double v) { return top + plot_h - (yt.back() > 0 ? v / yt.back() : 0) * plot_h; };

  svg.open("g", {{"class", "axes"}});
  for (const double t : yt) {
    svg.element("line", {{"x1", num(left)}, {"y1", num(py(t))}, {"x2", num(left + plot_w)}, {"y2", num(py(t))},
                         {"stroke", t == 0 ? "#333" : "#e3e3e3"}});
    svg.text(left - 6, py(t) + 4, format_si(t), {{"text-anchor", "end"}});
  }
  for (const double t : xt) {
    svg.element("line", {{"x1", num(px(t))}, {"y1", num(top)}, {"x2", num(px(t))}, {"y2", num(top + plot_h + 5)},
                         {"stroke", t == 0 ? "#333" : "#e3e3e3"}});
    svg.text(px(t), top + plot_h + 18, format_si(t), {{"text-anchor", "middle"}});
  }
  svg.text(left + plot_w / 2, top + plot_h + 40, "tokens/s/user (1 / mean TPOT)",
           {{"text-anchor", "middle"}, {"fill", "#333"}});
  const double cy = top + plot_h / 2;
  svg.text(20, cy, "output tokens/s/GPU",
           {{"text-anchor", "middle"}, {"fill", "#333"}, {"transform", fmt::format("rotate(-90 20 {})", num(cy))}});
  svg.close();

  const auto dot = [&](const ParetoPoint& p, const std::string& cls, std::string_view fill, const char* r,
                       const char* opacity) {
    svg.open("circle", {{"class", cls}, {"cx", num(px(p.per_user))}, {"cy", num(py(p.per_gpu))}, {"r", r},
                        {"fill", std::string(fill)}, {"fill-opacity", opacity}});
    svg.title(fmt::format("{}: {} tokens/s/GPU, {} tokens/s/user", p.label, format_si(p.per_gpu),
                          format_si(p.per_user)));
    svg.close();
  };
  for (const auto& s : series) {
    svg.open("g", {{"class", "missing"}, {"data-series", s.name}});
    for (const auto& p : s.missing) dot(p, "miss", "#9a9a9a", "2.2", "0.45");
    svg.close();
  }
  for (std::size_t i = 0; i < series.size(); ++i) {
    const auto& s = series[i];
    const std::string colour(series_colour(i));
    svg.open("g", {{"class", "series"}, {"data-series", s.name}});
    for (const auto& p : s.meeting) dot(p, "meets", colour, "2.6", "0.35");
    std::string d;
    for (const auto& p : s.frontier) d += fmt::format("{}{},{} ", d.empty() ? "M" : "L", num(px(p.per_user)), num(py(p.per_gpu)));
    if (!d.empty())
      svg.element("path", {{"class", "frontier"}, {"d", d}, {"fill", "none"}, {"stroke", colour}, {"stroke-width", "2"}});
    for (const auto& p : s.frontier) dot(p, "point", colour, "4", "1");
    svg.close();
  }

  const double lx = left + plot_w + 24;
  double ly = top;
  svg.open("g", {{"class", "legend"}});
  svg.text(lx, ly, "Pareto frontiers (meet the SLA)", {{"font-weight", "bold"}});
  ly += 18;
  for (std::size_t i = 0; i < series.size(); ++i) {
    const std::string colour(series_colour(i));
    svg.element("line", {{"x1", num(lx)}, {"y1", num(ly - 4)}, {"x2", num(lx + 22)}, {"y2", num(ly - 4)},
                         {"stroke", colour}, {"stroke-width", "2"}});
    svg.element("circle", {{"cx", num(lx + 11)}, {"cy", num(ly - 4)}, {"r", "4"}, {"fill", colour}});
    svg.text(lx + 28, ly,
             fit_text(fmt::format("{}: {} on the frontier", series[i].name, series[i].frontier.size()), 34));
    ly += 17;
  }
  svg.element("circle", {{"cx", num(lx + 11)}, {"cy", num(ly - 4)}, {"r", "2.2"}, {"fill", "#9a9a9a"}});
  svg.text(lx + 28, ly, "misses the SLA");
  ly += 24;
  for (const char* line : {"Each point: one deployment simulated", "on the same request stream; up and",
                           "right is better. Hover for details."}) {
    svg.text(lx, ly, line, {{"fill", "#555"}, {"font-size", "10"}});
    ly += 13;
  }
  svg.close();
  bool any = false;
  for (const auto& s : series) any = any || !s.frontier.empty();
  if (!any) svg.text(left + 12, top + 20, "(no deployment meets the SLA: nothing on a frontier)");
  return svg.finish();
}

}  // namespace costdsl::cli
