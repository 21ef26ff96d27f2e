// The SVG pictures (tools/icicle_svg.hpp, sweep_svg.hpp, svg_writer.hpp) and the family
// split (family_times.hpp): well-formed, widths proportional to time, critical lanes
// marked, text escaped, one series per configuration.
#include <doctest/doctest.h>

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <boost/mp11/algorithm.hpp>

#include "costdsl/costdsl.hpp"
#include "costdsl/kernels/all.hpp"
#include "icicle_svg.hpp"
#include "sweep_svg.hpp"

using namespace costdsl;
using namespace costdsl::cli;

namespace {

// A slot as a manifest records it: its kind and that kernel's declared family.
SlotDescription slot(std::string name, std::string_view kind) {
  Family family = Family::other;
  boost::mp11::mp_for_each<kernels::All>([&](auto k) {
    if (decltype(k)::kind == kind) family = decltype(k)::family;
  });
  return {std::move(name), std::string(kind), family, {}, {}, {}};
}

// ---------------------------------------------------------------------------
// A tiny XML checker: enough of XML 1.0 for what SvgWriter emits, strict about
// escaping (a raw '<', '>' or a bare '&' in text or attribute values fails).

struct XmlElement {
  std::string tag;
  std::map<std::string, std::string> attrs;
  std::string text;  // decoded, direct text only
  std::vector<std::size_t> children;
  std::size_t parent = static_cast<std::size_t>(-1);

  bool has_class(std::string_view c) const {
    const auto it = attrs.find("class");
    if (it == attrs.end()) return false;
    std::istringstream in(it->second);
    std::string w;
    while (in >> w)
      if (w == c) return true;
    return false;
  }
  double number(const std::string& key) const { return std::stod(attrs.at(key)); }
};

struct XmlDoc {
  std::vector<XmlElement> elements;  // [0] is the root
  std::string error;

  bool ok() const { return error.empty() && !elements.empty(); }
  std::vector<const XmlElement*> find(std::string_view tag, std::string_view cls = {}) const {
    std::vector<const XmlElement*> out;
    for (const auto& e : elements)
      if (e.tag == tag && (cls.empty() || e.has_class(cls))) out.push_back(&e);
    return out;
  }
  const XmlElement* first_child(const XmlElement& e, std::string_view tag) const {
    for (const std::size_t c : e.children)
      if (elements[c].tag == tag) return &elements[c];
    return nullptr;
  }
};

// Decodes the five named entities and numeric references; false on a bare '&'
// or a raw '<' / '>'.
bool decode(std::string_view s, std::string& out) {
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '<' || c == '>') return false;
    if (c != '&') {
      out += c;
      continue;
    }
    const auto semi = s.find(';', i);
    if (semi == std::string_view::npos) return false;
    const std::string_view ent = s.substr(i + 1, semi - i - 1);
    if (ent == "amp") out += '&';
    else if (ent == "lt") out += '<';
    else if (ent == "gt") out += '>';
    else if (ent == "quot") out += '"';
    else if (ent == "apos") out += '\'';
    else if (ent.size() > 1 && ent[0] == '#') out += '?';
    else return false;
    i = semi;
  }
  return true;
}

XmlDoc parse_xml(std::string_view s) {
  XmlDoc doc;
  std::size_t pos = 0;
  auto fail = [&](const std::string& what) {
    if (doc.error.empty()) doc.error = what + " at offset " + std::to_string(pos);
    return doc;
  };
  auto skip_ws = [&] {
    while (pos < s.size() && std::isspace(static_cast<unsigned char>(s[pos]))) ++pos;
  };
  auto is_name = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == ':' || c == '-'; };
  skip_ws();
  if (s.substr(pos, 5) == "<?xml") {
    const auto end = s.find("?>", pos);
    if (end == std::string_view::npos) return fail("unterminated XML declaration");
    pos = end + 2;
  }
  std::vector<std::size_t> stack;
  bool root_done = false;
  while (true) {
    if (stack.empty()) skip_ws();
    if (pos >= s.size()) break;
    if (s[pos] != '<') {
      const auto end = s.find('<', pos);
      const std::string_view raw = s.substr(pos, end == std::string_view::npos ? s.size() - pos : end - pos);
      std::string text;
      if (!decode(raw, text)) return fail("unescaped text '" + std::string(raw.substr(0, 40)) + "'");
      if (stack.empty()) return fail("text outside the root");
      doc.elements[stack.back()].text += text;
      pos += raw.size();
      continue;
    }
    if (s.substr(pos, 4) == "<!--") {
      const auto end = s.find("-->", pos);
      if (end == std::string_view::npos) return fail("unterminated comment");
      pos = end + 3;
      continue;
    }
    if (s.substr(pos, 2) == "</") {
      pos += 2;
      const std::size_t start = pos;
      while (pos < s.size() && is_name(s[pos])) ++pos;
      const std::string name(s.substr(start, pos - start));
      skip_ws();
      if (pos >= s.size() || s[pos] != '>') return fail("bad end tag");
      ++pos;
      if (stack.empty() || doc.elements[stack.back()].tag != name) return fail("unbalanced </" + name + ">");
      stack.pop_back();
      if (stack.empty()) root_done = true;
      continue;
    }
    ++pos;  // '<'
    const std::size_t start = pos;
    while (pos < s.size() && is_name(s[pos])) ++pos;
    if (pos == start) return fail("empty tag name");
    if (root_done) return fail("a second root element");
    XmlElement e;
    e.tag = std::string(s.substr(start, pos - start));
    bool self_closing = false;
    while (true) {
      skip_ws();
      if (pos >= s.size()) return fail("unterminated tag <" + e.tag);
      if (s.substr(pos, 2) == "/>") {
        pos += 2;
        self_closing = true;
        break;
      }
      if (s[pos] == '>') {
        ++pos;
        break;
      }
      const std::size_t a = pos;
      while (pos < s.size() && is_name(s[pos])) ++pos;
      if (pos == a) return fail("bad attribute in <" + e.tag);
      const std::string key(s.substr(a, pos - a));
      if (s.substr(pos, 2) != "=\"") return fail("attribute " + key + " is not =\"...\"");
      pos += 2;
      const auto end = s.find('"', pos);
      if (end == std::string_view::npos) return fail("unterminated attribute " + key);
      std::string value;
      if (!decode(s.substr(pos, end - pos), value)) return fail("unescaped attribute " + key);
      if (!e.attrs.emplace(key, value).second) return fail("duplicate attribute " + key);
      pos = end + 1;
    }
    const std::size_t idx = doc.elements.size();
    if (!stack.empty()) {
      e.parent = stack.back();
      doc.elements[stack.back()].children.push_back(idx);
    } else if (idx != 0) {
      return fail("a second root element");
    }
    doc.elements.push_back(std::move(e));
    if (self_closing) {
      if (stack.empty()) root_done = true;
    } else {
      stack.push_back(idx);
    }
  }
  if (!stack.empty()) return fail("unclosed <" + doc.elements[stack.back()].tag + ">");
  if (doc.elements.empty()) return fail("no root element");
  return doc;
}

// Well-formed, one <svg> root with width, height and a matching viewBox.
XmlDoc check_svg(const std::string& text) {
  XmlDoc doc = parse_xml(text);
  INFO(doc.error);
  REQUIRE(doc.ok());
  const XmlElement& root = doc.elements[0];
  CHECK(root.tag == "svg");
  CHECK(root.attrs.count("xmlns") == 1);
  REQUIRE(root.attrs.count("width") == 1);
  REQUIRE(root.attrs.count("height") == 1);
  REQUIRE(root.attrs.count("viewBox") == 1);
  std::istringstream vb(root.attrs.at("viewBox"));
  double x = -1, y = -1, w = -1, h = -1;
  vb >> x >> y >> w >> h;
  CHECK(x == 0);
  CHECK(y == 0);
  CHECK(w == doctest::Approx(root.number("width")));
  CHECK(h == doctest::Approx(root.number("height")));
  CHECK(w > 0);
  CHECK(h > 0);
  return doc;
}

void maybe_save(const std::string& name, const std::string& svg) {
  if (const char* dir = std::getenv("COSTDSL_SVG_OUT")) std::ofstream(std::string(dir) + "/" + name) << svg;
}

// A tree with every node kind:
//   labeled "model <&> test" (
//     sum(embed, labeled "layer"(scale 4 (sum(attn, gemm))),
//         max(r0, r1, r2), parallel 0.8 (s0, s1), head))
struct Fixture {
  Manifest m;
  std::vector<Metrics> row, nodes;

  Fixture() {
    using R = RuntimeNode;
    const R root = R::labeled(
        "model <&> test",
        R::sum({R::leaf("m.embed"), R::labeled("layer", R::scale(4, R::sum({R::leaf("m.l.attn<&>"), R::leaf("m.l.gemm")}))),
                R::max({R::leaf("m.r0"), R::leaf("m.r1"), R::leaf("m.r2")}),
                R::parallel(0.8, {R::leaf("m.s0"), R::leaf("m.s1")}), R::leaf("m.head")}));
    m.tree = FlatTree::from_runtime(root);
    const std::vector<std::pair<std::string, std::string>> slots{
        {"m.embed", "embedding"}, {"m.l.attn<&>", "attn_decode"}, {"m.l.gemm", "gemm"},
        {"m.r0", "all_reduce"},   {"m.r1", "gemm"},               {"m.r2", "rms_norm"},
        {"m.s0", "gemm"},         {"m.s1", "all_gather"},         {"m.head", "gemm"}};
    for (const auto& [n, k] : slots) m.slots.push_back(slot(n, k));
    const double ms[] = {0.5, 2.0, 3.0, 3.0, 5.0, 1.0, 2.0, 4.0, 1.5};
    for (const double t : ms) row.push_back(Metrics{t * 1e-3, 1e9, 1e6, 0.1, Coverage::analytic, no_backend});
    nodes.resize(m.tree.size());
    m.tree.aggregate(row, nodes);
  }
  std::size_t node_of_slot(std::uint32_t s) const {
    for (std::size_t i = 0; i < m.tree.size(); ++i)
      if (m.tree.nodes()[i].kind == NodeKind::leaf && m.tree.nodes()[i].first == s) return i;
    return static_cast<std::size_t>(-1);
  }
};

}  // namespace

TEST_CASE("xml_escape and text fitting") {
  CHECK(xml_escape("a<b>&\"c'") == "a&lt;b&gt;&amp;&quot;c&apos;");
  CHECK(xml_escape(std::string("x\x01y")) == "x y");
  CHECK(utf8_length("×80") == 3);
  CHECK(fit_text("abcdef", 6) == "abcdef");
  CHECK(fit_text("abcdef", 4) == "abc…");
  CHECK(fit_text("××××", 3) == "××…");
  CHECK(fit_text("abc", 1).empty());
  CHECK(num(1.0) == "1");
  CHECK(num(2.50) == "2.5");
  const auto t = nice_ticks(171);
  CHECK(t.front() == 0);
  CHECK(t.back() >= 171);
}

TEST_CASE("the checker rejects malformed XML") {
  CHECK_FALSE(parse_xml("<svg><g></svg>").ok());
  CHECK_FALSE(parse_xml("<svg><text>a < b</text></svg>").ok());
  CHECK_FALSE(parse_xml("<svg><text>a & b</text></svg>").ok());
  CHECK_FALSE(parse_xml("<svg a=\"1\" a=\"2\"/>").ok());
  CHECK_FALSE(parse_xml("<svg/><svg/>").ok());
  CHECK(parse_xml("<?xml version=\"1.0\"?>\n<svg a=\"&lt;\"><g/>x &amp; y</svg>\n").ok());
}

TEST_CASE("family_times partitions the total along the critical path") {
  Fixture f;
  const auto fam = family_times(f.m, f.nodes);
  double sum = 0;
  for (const double t : fam) sum += t;
  CHECK(sum == doctest::Approx(f.nodes[0].time_s).epsilon(1e-12));
  // embed 0.5 memory; layer 4×(2 attn + 3 gemm); max → r1 (5 gemm); parallel → s1 (4 comm) / 0.8; head 1.5 gemm
  CHECK(fam[family_index(Family::memory)] == doctest::Approx(0.5e-3));
  CHECK(fam[family_index(Family::attention)] == doctest::Approx(8e-3));
  CHECK(fam[family_index(Family::gemm)] == doctest::Approx((12 + 5 + 1.5) * 1e-3));
  CHECK(fam[family_index(Family::communication)] == doctest::Approx(5e-3));
  CHECK(f.nodes[0].time_s == doctest::Approx(0.5e-3 + 20e-3 + 5e-3 + 5e-3 + 1.5e-3));

  SUBCASE("under Sum / Scale it equals aggregating a masked row") {
    using R = RuntimeNode;
    Manifest m;
    m.tree = FlatTree::from_runtime(
        R::sum({R::leaf("a"), R::scale(3, R::sum({R::leaf("b"), R::leaf("c")})), R::leaf("d")}));
    m.slots = {slot("a", "gemm"), slot("b", "attn_prefill"), slot("c", "gemm"), slot("d", "p2p")};
    std::vector<Metrics> row(4);
    row[0].time_s = 1;
    row[1].time_s = 2;
    row[2].time_s = 3;
    row[3].time_s = 4;
    std::vector<Metrics> nodes(m.tree.size());
    m.tree.aggregate(row, nodes);
    const auto fam = family_times(m, nodes);
    for (const Family fa : all_families) {
      std::vector<Metrics> masked = row;
      for (std::size_t s = 0; s < masked.size(); ++s)
        if (m.slots[s].family != fa) masked[s] = Metrics{};
      CHECK(fam[family_index(fa)] == doctest::Approx(m.tree.aggregate(masked).time_s));
    }
  }
}

TEST_CASE("icicle: well-formed, widths proportional to time, critical lanes marked") {
  Fixture f;
  IcicleOptions opt;
  opt.title = "title <&>";
  const std::string svg = icicle_svg(f.m, f.nodes, f.row, opt);
  maybe_save("icicle_fixture.svg", svg);
  const XmlDoc doc = check_svg(svg);

  // Labels escaped in the source, intact once decoded.
  CHECK(svg.find("model &lt;&amp;&gt; test") != std::string::npos);
  CHECK(svg.find("m.l.attn&lt;&amp;&gt;") != std::string::npos);
  CHECK(svg.find("title &lt;&amp;&gt;") != std::string::npos);
  CHECK(svg.find("model <&> test") == std::string::npos);

  // Every box: width = contribution × (plot width / total), on one scale.
  const double plot_w = opt.width - 24;
  const double px_per_ms = plot_w / (f.nodes[0].time_s * 1e3);
  std::map<std::size_t, double> box_ms;
  std::size_t n_boxes = 0;
  for (const auto& e : doc.elements) {
    if (e.tag != "g" || !(e.has_class("leaf") || e.has_class("composite"))) continue;
    ++n_boxes;
    const XmlElement* rect = doc.first_child(e, "rect");
    REQUIRE(rect != nullptr);
    const double ms = e.number("data-time-ms");
    box_ms[std::stoul(e.attrs.at("data-node"))] = ms;
    CHECK(rect->number("width") + 1 == doctest::Approx(ms * px_per_ms).epsilon(0.002));
    REQUIRE(doc.first_child(e, "title") != nullptr);  // the full text as a tooltip
  }
  // Drawn: model, layer (×4 folded in), max, parallel, and the 9 leaves; not the Sums or the Scale.
  CHECK(n_boxes == 13);
  // Scaled leaves show their contribution (per copy × 4).
  CHECK(box_ms.at(f.node_of_slot(1)) == doctest::Approx(8.0));
  CHECK(box_ms.at(f.node_of_slot(2)) == doctest::Approx(12.0));
  CHECK(box_ms.at(f.node_of_slot(8)) == doctest::Approx(1.5));
  CHECK(svg.find("layer ×4") != std::string::npos);

  // One lane per Max / Parallel child; exactly one critical lane each: the slowest.
  const auto lanes = doc.find("g", "lane");
  CHECK(lanes.size() == 5);
  const auto critical = doc.find("g", "critical");
  REQUIRE(critical.size() == 2);
  CHECK(std::stoul(critical[0]->attrs.at("data-node")) == f.node_of_slot(4));  // r1: 5 ms
  CHECK(std::stoul(critical[1]->attrs.at("data-node")) == f.node_of_slot(7));  // s1: 4 ms
  const XmlElement* frame = doc.first_child(*critical[0], "rect");
  REQUIRE(frame != nullptr);
  CHECK(frame->attrs.at("stroke-width") == "2.5");
  CHECK(frame->number("width") - 3 == doctest::Approx(5.0 * px_per_ms).epsilon(0.002));
  CHECK(doc.find("text", "critical-note").size() == 2);
  // Non-critical lanes show their idle time up to the parent's end.
  CHECK(doc.find("rect", "slack").size() == 3);

  // Legend: the four families present.
  CHECK(doc.find("rect", "legend-family").size() == 4);
}

TEST_CASE("icicle: lower-bound efficiency strips when bounds are given") {
  Fixture f;
  std::vector<double> bounds;
  for (const auto& r : f.row) bounds.push_back(r.time_s / 2);
  IcicleOptions opt;
  opt.slot_bounds_s = bounds;
  const std::string svg = icicle_svg(f.m, f.nodes, f.row, opt);
  maybe_save("icicle_bounds.svg", svg);
  const XmlDoc doc = check_svg(svg);
  CHECK(doc.find("rect", "efficiency").size() == f.row.size());
  CHECK(svg.find("bound / time = 50%") != std::string::npos);
}

TEST_CASE("icicle: many ranks show the slowest max_lanes; empty and zero trees stay valid") {
  using R = RuntimeNode;
  std::vector<R> ranks;
  Manifest m;
  for (int i = 0; i < 12; ++i) {
    ranks.push_back(R::leaf("r" + std::to_string(i)));
    m.slots.push_back(slot("r" + std::to_string(i), "gemm"));
  }
  m.tree = FlatTree::from_runtime(R::max(ranks));
  std::vector<Metrics> row(12);
  for (int i = 0; i < 12; ++i) row[static_cast<std::size_t>(i)].time_s = (1 + i % 5) * 1e-3;
  std::vector<Metrics> nodes(m.tree.size());
  m.tree.aggregate(row, nodes);
  IcicleOptions opt;
  opt.max_lanes = 4;
  const std::string svg = icicle_svg(m, nodes, row, opt);
  const XmlDoc doc = check_svg(svg);
  CHECK(doc.find("g", "lane").size() == 4);
  CHECK(doc.find("g", "critical").size() == 1);
  CHECK(svg.find("8 more ranks") != std::string::npos);

  std::vector<Metrics> zero(12);
  m.tree.aggregate(zero, nodes);
  check_svg(icicle_svg(m, nodes, zero));
  check_svg(icicle_svg(Manifest{}, {}, {}));
}

TEST_CASE("sweep: one series per configuration, one point per batch size") {
  std::vector<SweepSeries> series;
  const double batches[] = {1, 3, 8, 64, 256};
  for (int s = 0; s < 3; ++s) {
    SweepSeries ser;
    ser.name = "gpu<" + std::to_string(s) + "> & tp";
    for (const double b : batches) {
      SweepPoint p;
      p.batch = b;
      p.time_s = (10 + s + 0.05 * b) * 1e-3;
      p.tokens_per_s = b / p.time_s;
      p.family_s[family_index(Family::gemm)] = 0.6 * p.time_s;
      p.family_s[family_index(Family::attention)] = 0.1 * p.time_s;
      p.family_s[family_index(Family::communication)] = 0.3 * p.time_s;
      ser.points.push_back(p);
    }
    series.push_back(std::move(ser));
  }
  SweepPlotOptions opt;
  opt.title = "sweep <&>";
  const std::string svg = sweep_svg(series, opt);
  maybe_save("sweep_fixture.svg", svg);
  const XmlDoc doc = check_svg(svg);
  CHECK(doc.find("g", "series").size() == 6);  // time and throughput panels
  CHECK(doc.find("g", "time").size() == 3);
  CHECK(doc.find("g", "throughput").size() == 3);
  CHECK(doc.find("circle", "point").size() == 30);
  CHECK(doc.find("path", "area").size() == 3);  // gemm, attention, communication
  CHECK(doc.find("g", "legend-series").size() == 3);
  CHECK(svg.find("gpu&lt;1&gt; &amp; tp") != std::string::npos);
  // Points go left to right with the batch size (log2 x).
  for (const XmlElement* g : doc.find("g", "time")) {
    double last_x = -1;
    for (const std::size_t c : g->children) {
      const XmlElement& e = doc.elements[c];
      if (e.tag != "circle") continue;
      CHECK(e.number("cx") > last_x);
      last_x = e.number("cx");
    }
  }
  // log2 spacing: 8 → 64 is three times 1 → 2's width... check 1, 8, 64 evenly spaced.
  const auto pts = doc.find("circle", "point");
  const double x1 = pts[0]->number("cx"), x8 = pts[2]->number("cx"), x64 = pts[3]->number("cx");
  CHECK(x64 - x8 == doctest::Approx(x8 - x1).epsilon(0.01));

  check_svg(sweep_svg({}));
}
