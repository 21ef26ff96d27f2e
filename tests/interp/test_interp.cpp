// Interpolating caches (design §8): axes, 1D/2D/3D interpolation, every
// extrapolation path and coverage flag, fit-time checks, and allocation-free queries.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstdlib>
#include <functional>
#include <limits>
#include <new>
#include <random>
#include <cstdint>
#include <utility>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "costdsl/costdsl.hpp"
#include "costdsl/coverage.hpp"
#include "costdsl/error.hpp"
#include "costdsl/interp/axis.hpp"
#include "costdsl/interp/grid.hpp"
#include "costdsl/interp/grid_fit.hpp"
#include "costdsl/interp/interp1d.hpp"
#include "costdsl/interp/interp2d.hpp"
#include "costdsl/interp/interp3d.hpp"
#include "costdsl/token_axis.hpp"

// Counts heap allocations so the tests can prove queries allocate nothing.
namespace {
std::atomic<std::size_t> g_allocations{0};
// Called through a volatile pointer so the compiler cannot pair an inlined new with
// free() and warn about a mismatched deallocation.
void (*volatile g_free)(void*) = std::free;
}  // namespace

void* operator new(std::size_t n) {
  ++g_allocations;
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { g_free(p); }
void operator delete(void* p, std::size_t) noexcept { g_free(p); }

using costdsl::Coverage;
using costdsl::DataError;
using costdsl::has;
using namespace costdsl::interp;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const DataError& e) {
    return e.what();
  }
  return "<no DataError>";
}

bool contains(const std::vector<std::string>& ws, const std::string& needle) {
  return std::any_of(ws.begin(), ws.end(), [&](const std::string& w) { return w.find(needle) != std::string::npos; });
}

// The shared token axis of design §8 (63 points).
std::vector<double> token_axis() {
  std::vector<double> v{32, 64, 128, 256};
  for (double x = 384; x <= 4096; x += 128) v.push_back(x);
  for (double x = 4096 + 256; x <= 8192; x += 256) v.push_back(x);
  for (double x = 8192 + 1024; x <= 16384; x += 1024) v.push_back(x);
  for (double x = 16384 + 4096; x <= 32768; x += 4096) v.push_back(x);
  v.push_back(65536);
  return v;
}

}  // namespace

// ---------------------------------------------------------------- axis

TEST_CASE("axis: construction rejects bad grids and names the axis") {
  CHECK(error_of([] { Axis("m", {}); }).find("axis 'm': no grid points") != std::string::npos);
  const auto unsorted = error_of([] { Axis("m", {1, 4, 2}); });
  CHECK(unsorted.find("axis 'm'") != std::string::npos);
  CHECK(unsorted.find("strictly increasing") != std::string::npos);
  CHECK(error_of([] { Axis("n", {1, 2, 2}); }).find("axis 'n'") != std::string::npos);
  CHECK(error_of([] { Axis("k", {1, kNaN}); }).find("finite") != std::string::npos);
  CHECK(error_of([] { Axis("k", {-kInf, 1}); }).find("finite") != std::string::npos);
  const auto log0 = error_of([] { Axis("t", {0, 1, 2}, AxisScale::log); });
  CHECK(log0.find("axis 't': log scale needs positive") != std::string::npos);
  CHECK_NOTHROW(Axis("one", {5}));
}

TEST_CASE("axis: branchless segment search agrees with std::upper_bound") {
  std::mt19937_64 rng(7);
  for (std::size_t n : {2U, 3U, 4U, 5U, 8U, 17U, 63U, 100U}) {
    std::vector<double> pts;
    double x = -3;
    std::uniform_real_distribution<double> step(0.1, 5.0);
    for (std::size_t i = 0; i < n; ++i) pts.push_back(x += step(rng));
    const Axis a("a", pts);
    std::uniform_real_distribution<double> q(pts.front() - 10, pts.back() + 10);
    auto expected = [&](double v) {
      const auto it = std::upper_bound(pts.begin(), pts.end(), v);
      const std::size_t i = it == pts.begin() ? 0 : static_cast<std::size_t>(it - pts.begin()) - 1;
      return std::min(i, n - 2);
    };
    for (int k = 0; k < 2000; ++k) {
      const double v = q(rng);
      REQUIRE(a.segment(v) == expected(v));
    }
    for (std::size_t i = 0; i < n; ++i) REQUIRE(a.segment(pts[i]) == expected(pts[i]));
  }
}

TEST_CASE("axis: the guided segment search agrees with the plain search on real and odd grids") {
  std::vector<std::vector<double>> grids;
  std::vector<double> gemm_m;
  for (std::uint32_t m : costdsl::gemm_m_axis()) gemm_m.push_back(m);
  grids.push_back(gemm_m);
  grids.push_back({0, 1, 2, 4, 8, 16});             // zero first point: still guided past p[1]
  grids.push_back({-4, -1, 0.5, 3, 9, 27, 81});     // sign change: plain search
  grids.push_back({1e-9, 1e-3, 1, 1e3, 1e9, 1e15});  // a wide range: coarse keys
  grids.push_back({1, 1.0000001, 1.0000002, 2, 3});  // dense points in one bucket
  std::vector<double> fine;
  for (int i = 0; i < 3000; ++i) fine.push_back(100 + i * 0.5);  // more points than the guide may hold
  grids.push_back(fine);
  std::mt19937_64 rng(11);
  for (const auto& pts : grids) {
    const Axis a("a", pts);
    std::vector<double> queries(pts.begin(), pts.end());
    for (double p : pts) {
      queries.push_back(std::nextafter(p, -kInf));
      queries.push_back(std::nextafter(p, kInf));
    }
    std::uniform_real_distribution<double> u(pts.front() - 1, pts.back() + 1);
    std::uniform_real_distribution<double> lg(std::log(std::max(pts[1], 1e-12)), std::log(pts.back()));
    for (int k = 0; k < 4000; ++k) {
      queries.push_back(u(rng));
      queries.push_back(std::exp(lg(rng)));
    }
    queries.insert(queries.end(), {kInf, -kInf, kNaN, 0.0, -0.0});
    CHECK(a.guided() == (pts.front() != -4 && pts.size() < 3000));  // the sign-change and 3000-point grids are not
    for (double q : queries) {
      CAPTURE(q);
      REQUIRE(a.segment(q) == a.search(q));
    }
  }
}

TEST_CASE("axis: locate gives weights, exact grid points and extrapolation") {
  const Axis a("m", {10, 20, 40});
  auto h = a.locate(15);
  CHECK(h.lo == 0);
  CHECK(h.hi == 1);
  CHECK(h.weight == doctest::Approx(0.5));
  CHECK_FALSE(h.extrapolated);
  h = a.locate(20);  // a grid point starts the next segment at weight 0
  CHECK(h.lo == 1);
  CHECK(h.weight == 0.0);
  h = a.locate(40);  // the last point ends the last segment at weight exactly 1
  CHECK(h.lo == 1);
  CHECK(h.weight == 1.0);
  CHECK_FALSE(h.extrapolated);
  h = a.locate(80);
  CHECK(h.lo == 1);
  CHECK(h.weight == doctest::Approx(3.0));
  CHECK(h.extrapolated);
  h = a.locate(5);
  CHECK(h.lo == 0);
  CHECK(h.weight == doctest::Approx(-0.5));
  CHECK(h.extrapolated);
  CHECK(a.contains(10));
  CHECK_FALSE(a.contains(9.99));
  CHECK(a.clamp(100) == 40);
}

TEST_CASE("axis: the segment end gets weight exactly 1 even when 1/width rounds") {
  // 49 · (1/49) rounds to 1 - 2^-53: the end point is pinned, so its value is exact.
  REQUIRE(49.0 * (1.0 / 49.0) != 1.0);
  const Axis a("m", {1, 50});
  CHECK(a.locate(50).weight == 1.0);
  const Interp1D t(a, {0.3, 0.7});
  CHECK(t.query(50).value == 0.7);
  const Axis l("m", {1, 50}, AxisScale::log);
  CHECK(l.locate(50).weight == 1.0);
}

TEST_CASE("axis: a single point is constant and everything else is extrapolated") {
  const Axis a("tp", {4});
  CHECK(a.segment(100) == 0);
  auto h = a.locate(4);
  CHECK(h.lo == 0);
  CHECK(h.hi == 0);
  CHECK(h.weight == 0.0);
  CHECK_FALSE(h.extrapolated);
  CHECK(a.locate(8).extrapolated);
  CHECK(a.locate(1).extrapolated);
}

TEST_CASE("axis: log scale interpolates in log space and extrapolates linearly in x") {
  const Axis lg("m", {1, 4, 16}, AxisScale::log);
  const Axis li("m", {1, 4, 16}, AxisScale::linear);
  CHECK(lg.scale() == AxisScale::log);
  CHECK(lg.locate(2).weight == doctest::Approx(0.5));  // log2: halfway between 0 and 2
  CHECK(li.locate(2).weight == doctest::Approx(1.0 / 3.0));
  CHECK(lg.locate(8).weight == doctest::Approx(0.5));
  // Off-grid: linear in x from the edge segment (log space would be undefined at 0).
  CHECK(lg.locate(28).weight == doctest::Approx(2.0));
  CHECK(lg.locate(0).weight == doctest::Approx(-1.0 / 3.0));
  CHECK(lg.locate(0).extrapolated);
}

TEST_CASE("axis: looks_geometric and scale detection") {
  const std::vector<double> pow2{1, 2, 4, 8, 16, 32};
  const std::vector<double> decades{1, 3, 10, 30, 100};
  const std::vector<double> lin{1, 2, 3, 4};
  CHECK(looks_geometric(pow2));
  CHECK(looks_geometric(decades));
  CHECK_FALSE(looks_geometric(lin));
  CHECK_FALSE(looks_geometric(std::vector<double>{1, 2}));  // two points say nothing
  CHECK_FALSE(looks_geometric(std::vector<double>{0, 1, 2}));
  CHECK_FALSE(looks_geometric(std::vector<double>{-4, -2, -1}));
  CHECK_FALSE(looks_geometric(token_axis()));
  CHECK(token_axis().size() == 63);
  CHECK(Axis("m", pow2, AxisScale::detect).scale() == AxisScale::log);
  CHECK(Axis("m", lin, AxisScale::detect).scale() == AxisScale::linear);
  CHECK(Axis("m", token_axis(), AxisScale::detect).scale() == AxisScale::linear);
}

// ---------------------------------------------------------------- 1D

TEST_CASE("interp1d: on-grid, between points, extrapolated and clamped") {
  const Interp1D t(Axis("m", {1, 2, 4}), {10, 20, 30});
  auto r = t.query(2);
  CHECK(r.value == 20.0);
  CHECK(r.coverage == Coverage::none);
  CHECK(t.query(4).value == 30.0);
  CHECK(t.query(1.5).value == doctest::Approx(15));
  CHECK(t.query(3).value == doctest::Approx(25));
  r = t.query(8);  // edge segment slope 5 per unit
  CHECK(r.value == doctest::Approx(50));
  CHECK(r.coverage == Coverage::extrapolated);
  r = t.query(0.5);
  CHECK(r.value == doctest::Approx(5));
  CHECK(r.coverage == Coverage::extrapolated);
  r = t.query(-5);  // the extension goes negative: clamped at 0, still flagged
  CHECK(r.value == 0.0);
  CHECK(r.coverage == Coverage::extrapolated);
  t.query(1);
  CHECK(t.axis().size() == 3);
  CHECK(t.values()[1] == 20.0);
}

TEST_CASE("interp1d: NaN/infinite query and empty table are NO_COVERAGE, never NaN") {
  const Interp1D t(Axis("m", {1, 2}), {1, 2});
  for (double q : {kNaN, kInf, -kInf}) {
    const auto r = t.query(q);
    CHECK(r.value == 0.0);
    CHECK(r.coverage == Coverage::no_coverage);
  }
  const Interp1D empty;
  CHECK(empty.empty());
  const auto r = empty.query(3);
  CHECK(r.value == 0.0);
  CHECK(r.coverage == Coverage::no_coverage);
  // A finite query so far off that the extension overflows is NO_COVERAGE too.
  const auto big = t.query(1e308);
  CHECK(big.value == 0.0);
  CHECK(has(big.coverage, Coverage::no_coverage));
}

TEST_CASE("interp1d: single-point table is constant along its axis") {
  const std::vector<Interp1D::Sample> s{{64, 3.5}};
  const auto t = Interp1D::fit(s, {"m"});
  CHECK(t.query(64).value == 3.5);
  CHECK(t.query(64).coverage == Coverage::none);
  const auto r = t.query(1000);
  CHECK(r.value == 3.5);
  CHECK(r.coverage == Coverage::extrapolated);
}

TEST_CASE("interp1d: log axis interpolates in log space") {
  const Interp1D t(Axis("m", {1, 4, 16}, AxisScale::log), {0, 2, 4});
  CHECK(t.query(2).value == doctest::Approx(1));  // log-linear: value = log2(x)
  CHECK(t.query(8).value == doctest::Approx(3));
  const auto r = t.query(28);  // linear-in-x extension of the last segment: 4 + 12·(2/12)
  CHECK(r.value == doctest::Approx(6));
  CHECK(r.coverage == Coverage::extrapolated);
}

TEST_CASE("interp1d: fit sorts samples, drops bad ones with warnings, checks monotonicity") {
  std::vector<std::string> w;
  const std::vector<Interp1D::Sample> s{{4, 40}, {1, 10}, {3, kNaN}, {2, 20}, {5, -1}, {kNaN, 7}, {6, kInf}, {8, 80}};
  const auto t = Interp1D::fit(s, {"m"}, &w, "gemm[h200]");
  REQUIRE(t.axis().size() == 4);  // 1, 2, 4, 8 survive
  CHECK(t.axis()[3] == 8);
  CHECK(t.query(6).value == doctest::Approx(60));
  CHECK(w.size() == 4);
  CHECK(contains(w, "gemm[h200]: dropped sample (m=3, value=nan): the value is not finite"));
  CHECK(contains(w, "(m=5, value=-1): the value is negative"));
  CHECK(contains(w, "a coordinate is not finite"));
  CHECK(contains(w, "(m=6, value=inf)"));

  w.clear();
  const std::vector<Interp1D::Sample> dip{{1, 10}, {2, 8.9}, {3, 8.5}, {4, 9}};
  Interp1D::fit(dip, {"m"}, &w, "rms_norm");
  REQUIRE(w.size() == 1);  // 10 -> 8.9 falls 11%; 8.9 -> 8.5 falls 4.5%: not reported
  CHECK(w[0].find("rms_norm: monotonicity break along m") != std::string::npos);
  CHECK(w[0].find("(m=1)") != std::string::npos);
  CHECK(w[0].find("(m=2)") != std::string::npos);

  w.clear();
  const std::vector<Interp1D::Sample> ok{{1, 10}, {2, 9.5}, {3, 12}};
  Interp1D::fit(ok, {"m"}, &w);
  CHECK(w.empty());
  Interp1D::fit(dip, {"m"}, nullptr);  // a null sink is allowed
}

TEST_CASE("interp1d: a flood of fit warnings is capped with a summary line") {
  std::vector<Interp1D::Sample> s;
  for (int i = 0; i < 40; ++i) s.push_back({double(i), i % 2 == 0 ? 10.0 : 1.0});  // 20 breaks
  for (int i = 0; i < 20; ++i) s.push_back({100.0 + i, -1.0});                    // 20 drops
  std::vector<std::string> w;
  const auto t = Interp1D::fit(s, {"m"}, &w, "lbl");
  CHECK(t.axis().size() == 40);
  CHECK(std::count_if(w.begin(), w.end(), [](const std::string& x) { return x.find("dropped sample (") != x.npos; }) == 16);
  CHECK(std::count_if(w.begin(), w.end(), [](const std::string& x) { return x.find("break along") != x.npos; }) ==
        16);
  CHECK(contains(w, "lbl: 4 more dropped samples not listed"));
  CHECK(contains(w, "lbl: 4 more monotonicity breaks not listed"));
  CHECK(w.size() == 34);
}

TEST_CASE("interp1d: all samples dropped gives the empty table; duplicates are errors") {
  std::vector<std::string> w;
  const std::vector<Interp1D::Sample> bad{{1, kNaN}, {2, -3}};
  const auto t = Interp1D::fit(bad, {"m"}, &w, "lbl");
  CHECK(t.empty());
  CHECK(t.query(1).coverage == Coverage::no_coverage);
  CHECK(contains(w, "lbl: no usable samples"));
  CHECK(Interp1D::fit(std::vector<Interp1D::Sample>{}).empty());

  const std::vector<Interp1D::Sample> dup{{1, 1}, {2, 2}, {1, 3}};
  const auto msg = error_of([&] { Interp1D::fit(dup, {"m"}, nullptr, "lbl"); });
  CHECK(msg.find("lbl: two samples at (m=1) (values 1 and 3)") != std::string::npos);
}

TEST_CASE("interp1d: direct construction validates values") {
  CHECK(error_of([] { Interp1D(Axis("m", {1, 2}), {1}); }).find("2 cells but 1 values") != std::string::npos);
  CHECK(error_of([] { Interp1D(Axis("m", {1, 2}), {1, -1}); }).find("(m=2) holds -1") != std::string::npos);
  CHECK(error_of([] { Interp1D(Axis("m", {1, 2}), {kNaN, 1}); }).find("finite") != std::string::npos);
}

namespace {

// A GEMM-like m grid: 1..17, then each multiple of 16 paired with the row after it.
std::vector<double> paired_m_grid() {
  std::vector<double> m;
  for (int i = 1; i <= 17; ++i) m.push_back(i);
  for (int e = 32; e <= 512; e += 16) m.insert(m.end(), {double(e), double(e + 1)});
  return m;
}

Interp1D aligned_table(const std::function<double(double)>& f, const std::vector<double>& points) {
  std::vector<Interp1D::Sample> s;
  for (double x : points) s.push_back({x, f(x)});
  return Interp1D::fit(s, {"m", AxisScale::linear, 16});
}

}  // namespace

TEST_CASE("interp1d: an aligned axis interpolates each class along its own curve") {
  // Aligned m on one line, the row after an edge on a slower one: a held-back 256 (an
  // aligned edge) lies between the unaligned 241 and 257 on the whole axis.
  const auto time = [](double m) { return std::fmod(m, 16) == 0 ? m : 3 * m; };
  std::vector<double> grid = paired_m_grid();
  std::erase(grid, 256.0);
  std::erase(grid, 321.0);
  const auto t = aligned_table(time, grid);
  CHECK(t.alignment() == 16);
  const auto aligned = t.query(256);
  CHECK(aligned.value == doctest::Approx(256));  // between 240 and 272, not 3 × 241..257
  CHECK(aligned.coverage == Coverage::none);
  CHECK(t.query(321).value == doctest::Approx(963));  // between 305 and 337, unaligned
  // Grid points answer their own value; off both curves' brackets the whole axis answers.
  for (double m : {1.0, 16.0, 17.0, 240.0, 257.0, 512.0, 513.0}) CHECK(t.query(m).value == time(m));
  const auto off = t.query(600);
  CHECK(off.coverage == Coverage::extrapolated);
  CHECK(off.value == doctest::Approx(3 * 513 + (600 - 513) * (3 * 513 - 512)));
  // An m of neither class (not a multiple of 16, not one past one) is on the whole axis.
  CHECK(t.query(300).value == doctest::Approx(3 * 289 + (300.0 - 289) / (304 - 289) * (304 - 3 * 289)));
  // So is the first point past a multiple: 17 belongs to the pairs, 1 does not.
  CHECK(t.query(9).value == doctest::Approx(27));
}

TEST_CASE("interp1d: a table whose classes lie on one curve keeps one curve") {
  // The table's own points decide: left out one at a time, the two curves predict no
  // better than the one, so the finer spacing stays.
  const auto t = aligned_table([](double m) { return 5 + 0.5 * m; }, paired_m_grid());
  CHECK(t.alignment() == 0);
  CHECK(t.query(100).value == doctest::Approx(55));
  // Too few points for either class to bracket anything: one curve too.
  const auto few = aligned_table([](double m) { return m; }, {1, 32});
  CHECK(few.alignment() == 0);
  CHECK(few.query(16).value == doctest::Approx(16));
}

TEST_CASE("interp1d: aligned queries allocate nothing; alignment is for one-axis tables") {
  const auto t = aligned_table([](double m) { return std::fmod(m, 16) == 0 ? m : 2 * m; }, paired_m_grid());
  REQUIRE(t.alignment() == 16);
  const std::size_t before = g_allocations.load();
  double sum = 0;
  for (int m = 1; m < 700; ++m) sum += t.query(m).value;
  CHECK(g_allocations.load() == before);
  CHECK(sum > 0);
  const std::vector<Interp2D::Sample> s{{1, 1, 1}, {2, 1, 2}, {1, 2, 3}, {2, 2, 4}};
  std::string message;
  try {
    Interp2D::fit(s, {"x", AxisScale::linear, 16}, {"y"}, OffGrid::clamp);
  } catch (const costdsl::InputError& e) {
    message = e.what();
  }
  CHECK(message == "interp2d: axis 'x' declares alignment 16; aligned axes are for one-axis tables only");
}

// ---------------------------------------------------------------- 2D

namespace {

// f(x, y) = 1 + 2x + 3y + xy is bilinear, so bilinear interpolation reproduces it.
double f2(double x, double y) { return 1 + 2 * x + 3 * y + x * y; }

Interp2D table2(std::function<double(double, double)> f, std::vector<double> xs, std::vector<double> ys,
                OffGrid p, std::vector<std::string>* w = nullptr) {
  std::vector<Interp2D::Sample> s;
  for (double x : xs)
    for (double y : ys) s.push_back({x, y, f(x, y)});
  return Interp2D::fit(s, {"x"}, {"y"}, p, w);
}

}  // namespace

TEST_CASE("interp2d: bilinear inside the grid is exact on a bilinear function") {
  const auto t = table2(f2, {1, 2, 4, 8}, {10, 20, 40}, OffGrid::clamp);
  CHECK(t.x_axis().size() == 4);
  CHECK(t.y_axis().size() == 3);
  for (double x : {1.0, 1.5, 3.0, 7.9, 8.0})
    for (double y : {10.0, 12.5, 33.0, 40.0}) {
      const auto r = t.query(x, y);
      CHECK(r.value == doctest::Approx(f2(x, y)));
      CHECK(r.coverage == Coverage::none);
    }
  CHECK(t.query(2, 20).value == f2(2, 20));  // grid points are exact
  CHECK(t.query(8, 40).value == f2(8, 40));
}

TEST_CASE("interp2d: clamp policy holds the edge value") {
  const auto t = table2(f2, {1, 2, 4}, {1, 2}, OffGrid::clamp);
  auto r = t.query(16, 1.5);
  CHECK(r.value == doctest::Approx(f2(4, 1.5)));
  CHECK(r.coverage == Coverage::extrapolated);
  r = t.query(0, 0);
  CHECK(r.value == doctest::Approx(f2(1, 1)));
  CHECK(r.coverage == Coverage::extrapolated);
  r = t.query(100, 100);
  CHECK(r.value == doctest::Approx(f2(4, 2)));
}

TEST_CASE("interp2d: product policy scales the edge by x/x_edge per axis") {
  // Attention-like work A·B: time = c·A·B.
  auto work = [](double a, double b) { return 1e-6 * a * b; };
  const auto t = table2(work, {256, 512, 1024}, {128, 256, 512}, OffGrid::product);
  auto r = t.query(1024 * 16, 512 * 16);  // 16x off both axes
  CHECK(r.value == doctest::Approx(work(1024 * 16, 512 * 16)));
  CHECK(r.coverage == Coverage::extrapolated);
  r = t.query(4096, 300);  // only x off-grid
  CHECK(r.value == doctest::Approx(work(4096, 300)));
  r = t.query(64, 128);  // below the grid scales down
  CHECK(r.value == doctest::Approx(work(64, 128)));
  CHECK(r.coverage == Coverage::extrapolated);
  r = t.query(-5, 128);  // nonsense negative load: clamped at 0
  CHECK(r.value == 0.0);

  // An edge at 0 gives no ratio: the value is held.
  const auto z = table2([](double x, double y) { return 1 + x + y; }, {0, 1}, {1, 2}, OffGrid::product);
  CHECK(z.query(-1, 1).value == doctest::Approx(2));
}

TEST_CASE("interp2d: weighted policy is exact on additive loads 16x off-grid (no 78x blow-up)") {
  const double a = 5, b = 0.02, c = 0.3;
  auto load = [&](double x, double y) { return a + b * x + c * y; };
  const std::vector<double> xs{1024, 2048, 4096, 8192}, ys{8, 16, 32, 64};
  const auto t = table2(load, xs, ys, OffGrid::weighted);
  CHECK(t.slopes(0).high == doctest::Approx(b));
  CHECK(t.slopes(1).high == doctest::Approx(c));
  CHECK(t.slopes(0).low == doctest::Approx(b));
  auto r = t.query(8192 * 16, 64 * 16);
  CHECK(r.value == doctest::Approx(load(8192 * 16, 64 * 16)));
  CHECK(r.coverage == Coverage::extrapolated);
  r = t.query(8192 * 16, 20);  // one axis off
  CHECK(r.value == doctest::Approx(load(8192 * 16, 20)));
  r = t.query(512, 4);  // below the grid uses the low band
  CHECK(r.value == doctest::Approx(load(512, 4)));

  // A noisy top corner adds a cross term to the top cell. Naive bilinear extrapolation
  // multiplies it by wx·wy (31·31 here); the weighted policy only sees it through the
  // band slopes, averaged over the other axis.
  auto truth = [](double x, double y) { return 10 + x + y; };
  const std::vector<double> g{1, 2, 4, 8};
  std::vector<Interp2D::Sample> s;
  for (double x : g)
    for (double y : g) s.push_back({x, y, truth(x, y) * (x == 8 && y == 8 ? 1.3 : 1.0)});
  const auto noisy = Interp2D::fit(s, {"tokens"}, {"peers"}, OffGrid::weighted);
  const double qx = 128, qy = 128;
  const double wx = (qx - 4) / 4, wy = (qy - 4) / 4;
  const double naive = (1 - wx) * (1 - wy) * truth(4, 4) + wx * (1 - wy) * truth(8, 4) +
                       (1 - wx) * wy * truth(4, 8) + wx * wy * truth(8, 8) * 1.3;
  const double weighted = noisy.query(qx, qy).value;
  CHECK(naive > 20 * truth(qx, qy));  // the failure mode the policy exists for
  CHECK(weighted < 1.5 * truth(qx, qy));
  CHECK(weighted > 0.9 * truth(qx, qy));
}

TEST_CASE("interp2d: weighted slopes come from the outermost band at each edge") {
  // Convex along x: the bottom band (1, 2, 3) has slope 4, the top band (3, 4, 5) slope 8.
  const auto t = table2([](double x, double y) { return 10 + x * x + 2 * y; }, {1, 2, 3, 4, 5}, {1, 2},
                        OffGrid::weighted);
  CHECK(t.slopes(0).low == doctest::Approx(4));
  CHECK(t.slopes(0).high == doctest::Approx(8));
  CHECK(t.slopes(1).high == doctest::Approx(2));
  CHECK(t.query(7, 1).value == doctest::Approx(10 + 25 + 2 + 8 * 2));
  CHECK(t.query(0, 1).value == doctest::Approx(10 + 1 + 2 - 4));
}

TEST_CASE("interp2d: weighted slopes clamp at 0 and the output clamps at 0") {
  // Falling along x (noise on an additive load): the high-edge slope clamps to 0.
  std::vector<std::string> w;
  const auto fall = table2([](double x, double y) { return 100 - x + y; }, {1, 2, 3}, {1, 2}, OffGrid::weighted, &w);
  CHECK(fall.slopes(0).high == 0.0);
  CHECK(fall.query(50, 1).value == doctest::Approx(98));
  // Extending down below the grid goes negative: clamped at 0.
  const auto steep = table2([](double x, double y) { return 1 + 10 * x + y; }, {1, 2, 3}, {1, 2}, OffGrid::weighted);
  const auto r = steep.query(-5, 1);
  CHECK(r.value == 0.0);
  CHECK(r.coverage == Coverage::extrapolated);
}

TEST_CASE("interp2d: weighted policy on a single-point axis holds the edge and warns") {
  std::vector<std::string> w;
  const auto t = table2([](double x, double y) { return x + y; }, {1, 2, 4}, {8}, OffGrid::weighted, &w);
  CHECK(contains(w, "no two valid points to fit a high-edge slope along y"));
  CHECK(t.query(2, 8).value == doctest::Approx(10));
  auto r = t.query(2, 64);
  CHECK(r.value == doctest::Approx(10));
  CHECK(r.coverage == Coverage::extrapolated);
  r = t.query(8, 8);
  CHECK(r.value == doctest::Approx(16));
}

TEST_CASE("interp2d: a missing corner renormalizes over the surviving ones") {
  // 2x2 grid, corner (1, 1) missing.
  const Axis x("x", {0, 1}), y("y", {0, 1});
  const Interp2D t(x, y, {10, 20, 30, 0}, {1, 1, 1, 0}, OffGrid::clamp);
  CHECK_FALSE(t.valid(1, 1));
  CHECK(t.valid(0, 1));
  CHECK(t.value(1, 0) == 30);
  // At (0.5, 0.5) every corner weighs 0.25: the three survivors average.
  auto r = t.query(0.5, 0.5);
  CHECK(r.value == doctest::Approx(20));
  CHECK(r.coverage == Coverage::renormalized);
  // At (0.25, 0.25): weights 9/16, 3/16 (y side), 3/16 (x side), lost 1/16.
  r = t.query(0.25, 0.25);
  CHECK(r.value == doctest::Approx((9 * 10 + 3 * 20 + 3 * 30) / 15.0));
  CHECK(r.coverage == Coverage::renormalized);
  // A valid grid point next to the missing one: the lost corner has no weight.
  r = t.query(1, 0);
  CHECK(r.value == 30.0);
  CHECK(r.coverage == Coverage::none);
  // The same at the far edge of a segment whose 1/width rounds (x = 50 on [1, 50]).
  const Interp2D wide(Axis("x", {1, 50}), Axis("y", {0, 1}), {10, 20, 30, 0}, {1, 1, 1, 0}, OffGrid::clamp);
  r = wide.query(50, 0);
  CHECK(r.value == 30.0);
  CHECK(r.coverage == Coverage::none);
  // Exactly on the missing point every survivor has zero weight: their plain mean.
  r = t.query(1, 1);
  CHECK(r.value == doctest::Approx(20));
  CHECK(r.coverage == Coverage::renormalized);
  // Off-grid next to the hole: both flags.
  r = t.query(5, 5);
  CHECK(r.value == doctest::Approx(20));
  CHECK(r.coverage == (Coverage::renormalized | Coverage::extrapolated));
}

TEST_CASE("interp2d: a cell with no valid corner is NO_COVERAGE") {
  // 3x3 grid with the lower-left cell's corners missing.
  std::vector<double> v(9, 5.0);
  std::vector<std::uint8_t> ok(9, 1);
  for (std::size_t i : {0U, 1U, 3U, 4U}) ok[i] = 0;  // (0,0) (0,1) (1,0) (1,1)
  const Interp2D t(Axis("x", {0, 1, 2}), Axis("y", {0, 1, 2}), v, ok, OffGrid::clamp);
  auto r = t.query(0.5, 0.5);
  CHECK(r.value == 0.0);
  CHECK(r.coverage == Coverage::no_coverage);
  r = t.query(1.5, 1.5);
  CHECK(r.value == doctest::Approx(5));
  CHECK(r.coverage == Coverage::renormalized);
}

TEST_CASE("interp2d: NaN/infinite query and empty table are NO_COVERAGE") {
  const auto t = table2(f2, {1, 2}, {1, 2}, OffGrid::weighted);
  for (auto [x, y] : {std::pair{kNaN, 1.0}, std::pair{1.0, kNaN}, std::pair{kInf, 1.0}, std::pair{1.0, -kInf}}) {
    const auto r = t.query(x, y);
    CHECK(r.value == 0.0);
    CHECK(r.coverage == Coverage::no_coverage);
  }
  const Interp2D empty;
  CHECK(empty.query(1, 1).coverage == Coverage::no_coverage);
  std::vector<std::string> w;
  const auto dropped = Interp2D::fit(std::vector<Interp2D::Sample>{{1, 1, kNaN}}, {"x"}, {"y"}, OffGrid::clamp, &w);
  CHECK(dropped.empty());
  CHECK(dropped.query(1, 1).coverage == Coverage::no_coverage);
  CHECK(contains(w, "no usable samples"));
}

TEST_CASE("interp2d: fit leaves unmeasured cells missing and checks every axis") {
  std::vector<std::string> w;
  // x in {1, 2}, y in {1, 2}: (2, 2) never measured; one negative sample dropped.
  const std::vector<Interp2D::Sample> s{{1, 1, 10}, {1, 2, 20}, {2, 1, 30}, {2, 3, -1}};
  const auto t = Interp2D::fit(s, {"prefix"}, {"append"}, OffGrid::product, &w, "prefill");
  CHECK(t.y_axis().size() == 2);  // the dropped sample's y = 3 is not a grid point
  CHECK_FALSE(t.valid(1, 1));
  CHECK(t.query(1.5, 1.5).coverage == Coverage::renormalized);
  CHECK(contains(w, "prefill: dropped sample (prefix=2, append=3, value=-1): the value is negative"));

  w.clear();
  const std::vector<Interp2D::Sample> dip{{1, 1, 10}, {1, 2, 8}, {2, 1, 5}, {2, 2, 9}};
  Interp2D::fit(dip, {"prefix"}, {"append"}, OffGrid::product, &w, "prefill");
  CHECK(contains(w, "monotonicity break along append: value falls from 10 at (prefix=1, append=1) to 8"));
  CHECK(contains(w, "monotonicity break along prefix: value falls from 10 at (prefix=1, append=1) to 5"));
  CHECK_FALSE(contains(w, "from 8"));  // 8 -> 9 rises

  const std::vector<Interp2D::Sample> dup{{1, 1, 1}, {1, 1, 2}};
  CHECK(error_of([&] { Interp2D::fit(dup, {"a"}, {"b"}, OffGrid::clamp, nullptr, "t"); })
            .find("t: two samples at (a=1, b=1)") != std::string::npos);
}

// A kernel's time as an efficiency that varies slowly times a model time that grows with
// the work: what fill_missing assumes.
namespace {
double work(double x, double y) { return x * y + 1; }
double efficiency(double x, double y) { return 0.5 + 0.01 * x + 0.02 * y; }
double measured(double x, double y) { return efficiency(x, y) * work(x, y); }
auto work_model() {
  return [](const std::array<double, 2>& at) { return work(at[0], at[1]); };
}
Interp2D table_without(const std::vector<double>& xs, const std::vector<double>& ys,
                       const std::vector<std::pair<double, double>>& holes) {
  std::vector<Interp2D::Sample> s;
  for (double x : xs)
    for (double y : ys)
      if (std::find(holes.begin(), holes.end(), std::pair{x, y}) == holes.end()) s.push_back({x, y, measured(x, y)});
  return Interp2D::fit(s, {"x"}, {"y"}, OffGrid::product);
}
}  // namespace

TEST_CASE("interp2d: a missing cell is estimated from its neighbours' efficiency, not their times") {
  // Interior hole: the efficiency is linear along each line, so each axis's estimate and
  // their average are exact, while renormalizing raw times is not.
  auto t = table_without({1, 2, 4}, {1, 8, 64}, {{2, 8}});
  const double renormalized = t.query(2, 8).value;
  CHECK(t.query(2, 8).coverage == Coverage::renormalized);
  CHECK(t.estimate_missing(work_model()) == 1);
  CHECK_FALSE(t.valid(1, 1));
  CHECK(t.estimated(1, 1));
  CHECK(t.value(1, 1) == doctest::Approx(measured(2, 8)).epsilon(1e-12));
  CHECK(std::abs(renormalized / measured(2, 8) - 1) > 0.2);  // what the fill replaces
  // A query that leans on the estimated cell answers it, flagged; one that does not, not.
  auto r = t.query(2, 8);
  CHECK(r.value == doctest::Approx(measured(2, 8)).epsilon(1e-12));
  CHECK(r.coverage == Coverage::renormalized);
  r = t.query(3, 40);  // the cell (2..4) x (8..64), whose corner (2, 8) is the estimated one
  CHECK(r.coverage == Coverage::renormalized);
  r = t.query(1.5, 1);  // on the y = 1 line: (2, 8) has no weight
  CHECK(r.coverage == Coverage::none);
}

TEST_CASE("interp2d: an edge hole holds the nearest efficiencies, weighted by index distance") {
  // (4, 64): measured neighbours (2, 64) one step along x and (4, 8) one step along y.
  auto t = table_without({1, 2, 4}, {1, 8, 64}, {{4, 64}});
  t.estimate_missing(work_model());
  const double held = (efficiency(2, 64) + efficiency(4, 8)) / 2;
  CHECK(t.value(2, 2) == doctest::Approx(held * work(4, 64)).epsilon(1e-12));
  // Off the grid from an estimated edge: both flags, the product policy's scaling.
  const auto off = t.query(8, 64);
  CHECK(off.coverage == (Coverage::renormalized | Coverage::extrapolated));
  CHECK(off.value == doctest::Approx(2 * held * work(4, 64)).epsilon(1e-12));
  // Two holes in a row along x: (2, 64) and (4, 64). (4, 64) is two steps from (1, 64)
  // along x and one from (4, 8) along y: weights 1/2 and 1.
  auto u = table_without({1, 2, 4}, {1, 8, 64}, {{2, 64}, {4, 64}});
  u.estimate_missing(work_model());
  const double e = (efficiency(1, 64) / 2 + efficiency(4, 8)) / 1.5;
  CHECK(u.value(2, 2) == doctest::Approx(e * work(4, 64)).epsilon(1e-12));
}

TEST_CASE("interp2d: the fill leaves a cell missing where the model has no time, and finds a far source") {
  auto t = table_without({1, 2, 4}, {1, 8, 64}, {{2, 8}});
  CHECK(t.estimate_missing([](const std::array<double, 2>& at) { return at[0] == 2 ? 0.0 : 1.0; }) == 0);
  CHECK_FALSE(t.estimated(1, 1));
  CHECK(t.query(2, 8).coverage == Coverage::renormalized);  // renormalized, as before
  // A model time that is NaN is no time either.
  CHECK(t.estimate_missing([](const std::array<double, 2>&) { return kNaN; }) == 0);
  // A hole with nothing measured on its lines: (1, 1) of a grid whose only measured
  // cells are (2, 8), (2, 64), (4, 8), (4, 64) takes the nearest one's efficiency, (2, 8).
  std::vector<double> v;
  std::vector<std::uint8_t> ok;
  for (double x : {1.0, 2.0, 4.0})
    for (double y : {1.0, 8.0, 64.0}) {
      const bool on = (x > 1 && y > 1);
      v.push_back(on ? measured(x, y) : 0);
      ok.push_back(on ? 1 : 0);
    }
  Interp2D far(Axis("x", {1, 2, 4}), Axis("y", {1, 8, 64}), v, ok, OffGrid::product);
  CHECK(far.estimate_missing(work_model()) == 5);
  CHECK(far.value(0, 0) == doctest::Approx(efficiency(2, 8) * work(1, 1)).epsilon(1e-12));
  CHECK(far.value(0, 2) == doctest::Approx(efficiency(2, 64) * work(1, 64)).epsilon(1e-12));
}

TEST_CASE("interp2d: log axes weight in log space") {
  const Interp2D t(Axis("x", {1, 4}, AxisScale::log), Axis("y", {1, 2}), {0, 0, 2, 2}, {}, OffGrid::clamp);
  CHECK(t.query(2, 1.5).value == doctest::Approx(1));
  const Interp2D d(Axis("x", {1, 4}), Axis("y", {1, 2}), {0, 0, 3, 3}, {}, OffGrid::clamp);
  CHECK(d.query(2, 1.5).value == doctest::Approx(1));
}

TEST_CASE("interp2d: direct construction validates sizes and values") {
  CHECK(error_of([] { Interp2D(Axis("x", {1, 2}), Axis("y", {1}), {1, 2, 3}, {}, OffGrid::clamp); })
            .find("2 cells but 3 values") != std::string::npos);
  CHECK(error_of([] { Interp2D(Axis("x", {1, 2}), Axis("y", {1}), {1, 2}, {1}, OffGrid::clamp); })
            .find("1 mask entries") != std::string::npos);
  CHECK(error_of([] { Interp2D(Axis("x", {1, 2}), Axis("y", {1}), {1, -2}, {}, OffGrid::clamp); })
            .find("(x=2, y=1) holds -2") != std::string::npos);
  // A missing cell may hold anything.
  CHECK_NOTHROW(Interp2D(Axis("x", {1, 2}), Axis("y", {1}), {1, kNaN}, {1, 0}, OffGrid::clamp));
  CHECK(name(OffGrid::weighted) == "weighted");
}

// ---------------------------------------------------------------- 3D

namespace {

// Trilinear, so trilinear interpolation and extension reproduce it exactly.
double f3(double x, double y, double z) { return 1 + x + 2 * y + 3 * z + 0.5 * x * y + 0.25 * x * y * z; }

Interp3D table3(std::vector<double> xs, std::vector<double> ys, std::vector<double> zs) {
  std::vector<Interp3D::Sample> s;
  for (double x : xs)
    for (double y : ys)
      for (double z : zs) s.push_back({x, y, z, f3(x, y, z)});
  return Interp3D::fit(s, {"batch"}, {"kv"}, {"heads"});
}

}  // namespace

TEST_CASE("interp3d: trilinear inside and linear extension outside") {
  const auto t = table3({1, 2, 4}, {8, 16}, {1, 3, 5, 7});
  CHECK(t.axis(2).size() == 4);
  for (double x : {1.0, 1.25, 3.0, 4.0})
    for (double y : {8.0, 9.0, 16.0})
      for (double z : {1.0, 2.0, 6.5}) {
        const auto r = t.query(x, y, z);
        CHECK(r.value == doctest::Approx(f3(x, y, z)));
        CHECK(r.coverage == Coverage::none);
      }
  auto r = t.query(8, 32, 9);  // every axis off-grid
  CHECK(r.value == doctest::Approx(f3(8, 32, 9)));
  CHECK(r.coverage == Coverage::extrapolated);
  r = t.query(2, 4, 3);  // one axis below
  CHECK(r.value == doctest::Approx(f3(2, 4, 3)));
  CHECK(r.coverage == Coverage::extrapolated);
  r = t.query(-100, 8, 1);  // the extension goes negative: clamped
  CHECK(r.value == 0.0);
  CHECK(r.coverage == Coverage::extrapolated);
}

TEST_CASE("interp3d: missing corners renormalize, also off the grid") {
  // value = x on the unit cube, corner (1, 1, 1) missing.
  std::vector<double> v(8);
  std::vector<std::uint8_t> ok(8, 1);
  for (std::size_t i = 0; i < 8; ++i) v[i] = static_cast<double>(i >> 2);  // x index is the top bit
  ok[7] = 0;
  const Interp3D t(Axis("x", {0, 1}), Axis("y", {0, 1}), Axis("z", {0, 1}), v, ok);
  CHECK_FALSE(t.valid(1, 1, 1));
  CHECK(t.value(1, 0, 0) == 1.0);
  auto r = t.query(0.5, 0.5, 0.5);  // 7 survivors at 1/8 each: (3·1 + 4·0)/7
  CHECK(r.value == doctest::Approx(3.0 / 7.0));
  CHECK(r.coverage == Coverage::renormalized);
  r = t.query(1, 0, 0);
  CHECK(r.value == 1.0);
  CHECK(r.coverage == Coverage::none);
  // Off the grid along x the lost corner takes the in-grid average of the survivors,
  // so the linear extension stays right (2.0) instead of dividing by a skewed sum.
  r = t.query(2, 0.5, 0.5);
  CHECK(r.value == doctest::Approx(2.0));
  CHECK(r.coverage == (Coverage::renormalized | Coverage::extrapolated));

  std::vector<std::uint8_t> none(8, 0);
  const Interp3D dead(Axis("x", {0, 1}), Axis("y", {0, 1}), Axis("z", {0, 1}), v, none);
  r = dead.query(0.5, 0.5, 0.5);
  CHECK(r.value == 0.0);
  CHECK(r.coverage == Coverage::no_coverage);
}

TEST_CASE("interp3d: NaN query, empty table, single-point axes, fit checks") {
  const auto t = table3({1, 2}, {1, 2}, {4});
  CHECK(t.query(1.5, 1.5, 4).value == doctest::Approx(f3(1.5, 1.5, 4)));
  auto r = t.query(1.5, 1.5, 40);  // constant along the single-point axis
  CHECK(r.value == doctest::Approx(f3(1.5, 1.5, 4)));
  CHECK(r.coverage == Coverage::extrapolated);
  for (double q : {kNaN, kInf}) {
    r = t.query(1, q, 4);
    CHECK(r.value == 0.0);
    CHECK(r.coverage == Coverage::no_coverage);
  }
  CHECK(Interp3D().query(1, 1, 1).coverage == Coverage::no_coverage);

  std::vector<std::string> w;
  const std::vector<Interp3D::Sample> s{{1, 1, 1, 10}, {1, 1, 2, 5}, {1, 2, 1, kInf}, {2, 1, 1, 12}};
  const auto g = Interp3D::fit(s, {"a"}, {"b"}, {"c"}, &w, "t3");
  CHECK(contains(w, "t3: dropped sample (a=1, b=2, c=1, value=inf)"));
  CHECK(contains(w, "monotonicity break along c"));
  CHECK(g.axis(1).size() == 1);  // b = 2 only came from the dropped sample
  CHECK_FALSE(g.valid(1, 0, 1));
  CHECK(error_of([] { Interp3D(Axis("x", {1}), Axis("y", {1}), Axis("z", {1, 2}), {1}, {}); })
            .find("2 cells but 1 values") != std::string::npos);
}

// ---------------------------------------------------------------- hot path

TEST_CASE("queries allocate nothing") {
  const Interp1D t1(Axis("m", token_axis()), std::vector<double>(63, 1.0));
  const auto t2 = table2(f2, {1, 2, 4, 8}, {1, 2, 4}, OffGrid::weighted);
  const auto t3 = table3({1, 2}, {1, 2}, {1, 2});
  double sum = 0;
  const std::size_t before = g_allocations.load();
  for (int i = 0; i < 1000; ++i) {
    const double q = i * 70.0;
    sum += t1.query(q).value + t2.query(q / 1000, 3).value + t3.query(1.5, q / 1000, 1).value;
    sum += t1.query(kNaN).value + t2.query(kNaN, 1).value;
  }
  const std::size_t after = g_allocations.load();
  CHECK(after == before);
  CHECK(sum > 0);
}
