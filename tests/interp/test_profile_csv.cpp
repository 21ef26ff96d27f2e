// The strict profile-table loader: grouping, tolerated encodings, every DataError
// (with its FILE:LINE:COL), and the rows dropped with a warning; a kernel bound to what
// it loads, one backend per table.
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include <doctest/doctest.h>
#include <fmt/format.h>

#include "costdsl/costdsl.hpp"
#include "costdsl/error.hpp"
#include "costdsl/kernels/all_reduce.hpp"
#include "costdsl/kernels/attn_decode.hpp"
#include "costdsl/kernels/attn_prefill.hpp"
#include "costdsl/kernels/fused_moe.hpp"
#include "costdsl/kernels/gemm.hpp"
#include "costdsl/detail/gzip_text.hpp"
#include "costdsl/profile_csv.hpp"

using costdsl::ColumnType;
using costdsl::DataError;
using costdsl::InputError;
using costdsl::ProfileKey;
using costdsl::ProfileSchema;
using costdsl::ProfileTable;

namespace {

ProfileSchema gemm_schema() {
  return ProfileSchema{"gemm", {{"n", ColumnType::integer}, {"k", ColumnType::integer}, {"dtype", ColumnType::text}},
                       {"m"}};
}

ProfileTable load(std::string_view text, std::vector<std::string>* w = nullptr) {
  return costdsl::load_profile_csv_text(text, "gemm.csv", gemm_schema(), w);
}

// The DataError message a load raises ("<no DataError>" if it loads).
std::string error_of(std::string_view text) {
  try {
    load(text);
  } catch (const DataError& e) {
    return e.what();
  }
  return "<no DataError>";
}

bool has(const std::string& s, std::string_view needle) { return s.find(needle) != std::string::npos; }

constexpr std::string_view header = "n,k,dtype,m,backend,time_ms\n";

}  // namespace

TEST_CASE("profile csv: rows group by config and backend, columns in any order") {
  const std::string text =
      "# gemm on h200, measured 2024-05-01\n"
      "\n"
      "backend,m,time_ms,dtype,k,n,energy_j\n"
      "cublaslt,1,0.010,bf16,4096,4096,0.5\n"
      "cublaslt,2,0.011,bf16,4096,4096,\n"
      "   # an indented comment\n"
      "torch,1,0.012,bf16,4096,4096,0.6\n"
      "cublaslt,1,0.020,bf16,4096,8192,1.0\n"
      "cublaslt,4,0.013,bf16,04096,4096,nan\n";
  std::vector<std::string> w;
  const auto t = load(text, &w);
  CHECK(w.empty());
  CHECK(t.file() == "gemm.csv");
  CHECK(t.schema().kind == "gemm");
  CHECK(t.has_energy());
  REQUIRE(t.groups().size() == 3);
  CHECK(t.point_count() == 5);
  const auto& g0 = t.groups()[0];
  CHECK(g0.key == ProfileKey{{"4096", "4096", "bf16"}, "cublaslt"});
  REQUIRE(g0.points.size() == 3);  // "04096" reads as 4096
  CHECK(g0.points[0].inputs == std::vector<double>{1});
  CHECK(g0.points[0].time_ms == 0.010);
  CHECK(g0.points[0].energy_j == 0.5);
  CHECK(g0.points[0].line == 4);
  CHECK(std::isnan(g0.points[1].energy_j));  // empty cell: not measured
  CHECK(std::isnan(g0.points[2].energy_j));  // "nan": not measured
  CHECK(g0.points[2].inputs[0] == 4);
  CHECK(g0.points[2].line == 9);

  const auto* torch = t.find({"4096", "4096", "bf16"}, "torch");
  REQUIRE(torch != nullptr);
  CHECK(torch->points.size() == 1);
  CHECK(torch->points[0].time_ms == 0.012);
  CHECK(t.find({"8192", "4096", "bf16"}, "cublaslt") != nullptr);  // config order: n, k, dtype
  CHECK(t.find({"4096", "8192", "bf16"}, "cublaslt") == nullptr);
  CHECK(t.find({"4096", "4096", "fp8"}, "cublaslt") == nullptr);
  const std::vector<std::string> cfg{"4096", "4096", "bf16"};
  CHECK(t.backends(cfg) == std::vector<std::string>{"cublaslt", "torch"});
}

TEST_CASE("profile csv: two inputs, no energy column") {
  const ProfileSchema s{"prefill", {{"heads", ColumnType::integer}}, {"prefix", "append"}};
  const auto t = costdsl::load_profile_csv_text(
      "heads,prefix,append,backend,time_ms\n8,0,512,flashinfer,0.2\n8,1024,128,flashinfer,0.15\n", "p.csv", s);
  CHECK_FALSE(t.has_energy());
  REQUIRE(t.groups().size() == 1);
  CHECK(t.groups()[0].points[1].inputs == std::vector<double>{1024, 128});
  CHECK(std::isnan(t.groups()[0].points[0].energy_j));
}

TEST_CASE("profile csv: BOM, CRLF and spaces around cells are tolerated") {
  const std::string text = "\xEF\xBB\xBFn, k ,dtype,m,backend,time_ms\r\n# c\r\n\r\n64,128, bf16 ,8,torch,1.5\r\n";
  const auto t = load(text);
  REQUIRE(t.groups().size() == 1);
  CHECK(t.groups()[0].key == ProfileKey{{"64", "128", "bf16"}, "torch"});
  CHECK(t.groups()[0].points[0].time_ms == 1.5);
  CHECK(t.groups()[0].points[0].line == 4);
  // No newline at the end of the last line.
  CHECK(load(std::string(header) + "1,2,bf16,3,torch,4").point_count() == 1);
  // UTF-8 text cells pass.
  CHECK(load(std::string(header) + "1,2,bf16,3,t\xC3\xB6rch,4").groups()[0].key.backend == "t\xC3\xB6rch");
}

TEST_CASE("profile csv: provenance columns are read past, whatever their text") {
  const ProfileTable t = load(
      "n,k,dtype,m,backend,time_ms,framework,version,source\n"
      "8,8,bf16,1,sglang,0.01,SGLang,0.5.14,sglang_torch_linear\n"
      "8,8,bf16,2,sglang,0.02,,,\n");
  REQUIRE(t.groups().size() == 1);
  CHECK(t.groups()[0].key.backend == "sglang");
  CHECK(t.point_count() == 2);
  // They are reserved: a kind may not name a config or input field after them.
  ProfileSchema bad = gemm_schema();
  bad.inputs.push_back("source");
  CHECK_THROWS_WITH_AS(costdsl::load_profile_csv_text("x", "t.csv", bad),
                       "profile schema 'gemm': column 'source' is reserved for the loader", InputError);
  // Each may appear once.
  CHECK(has(error_of("n,k,dtype,m,backend,time_ms,source,source\n"), "duplicate column 'source'"));
}

TEST_CASE("profile csv: for_each_csv_line hands over trimmed cells with their columns") {
  std::vector<std::string> seen;
  costdsl::for_each_csv_line("# c\n a , b\r\n\nc,,d\n", "t.csv",
                             [&](std::size_t line, std::string_view, std::span<const costdsl::CsvCell> cells) {
                               for (const auto& c : cells)
                                 seen.push_back(std::to_string(line) + ":" + std::to_string(c.col) + "=" +
                                                std::string(c.text));
                             });
  CHECK(seen == std::vector<std::string>{"2:2=a", "2:6=b", "4:1=c", "4:3=", "4:4=d"});
  CHECK_THROWS_WITH_AS(costdsl::for_each_csv_line("a,\"b\"\n", "t.csv", [](auto, auto, auto) {}),
                       "t.csv:1:3: quoted cells are not supported (found '\"'); cells may not contain commas",
                       DataError);
}

TEST_CASE("profile csv: header errors") {
  CHECK(has(error_of(""), "gemm.csv:1:1: empty file: no header line"));
  CHECK(has(error_of("# only a comment\n\n  \n"), "gemm.csv:1:1: empty file"));
  CHECK(has(error_of("\xEF\xBB\xBF"), "empty file"));

  auto e = error_of("n,k,dtype,m,backend,time_ms,bogus\n");
  CHECK(has(e, "gemm.csv:1:29: unknown column 'bogus' for kind 'gemm'"));
  CHECK(has(e, "expected columns: n, k, dtype, m, backend, time_ms [, energy_j, framework, version, source]"));

  e = error_of("# c\nn,dtype,m,backend,time_ms\n");
  CHECK(has(e, "gemm.csv:2:1: missing column 'k'"));
  CHECK(has(error_of("n,k,dtype,backend,time_ms\n"), "missing column 'm'"));
  CHECK(has(error_of("n,k,dtype,m,time_ms\n"), "missing column 'backend'"));
  CHECK(has(error_of("n,k,dtype,m,backend\n"), "missing column 'time_ms'"));

  e = error_of("n,k,dtype,m,backend,time_ms,k\n");
  CHECK(has(e, "gemm.csv:1:29: duplicate column 'k' (also header column 2)"));
  CHECK(has(error_of("n,k,,dtype,m,backend,time_ms\n"), "gemm.csv:1:5: header column 3 has no name"));
}

TEST_CASE("profile csv: row errors name file, line, column, value and rule") {
  const std::string h(header);
  auto e = error_of(h + "1,2,bf16,3,torch,4,5\n");
  CHECK(has(e, "gemm.csv:2:20: row has 7 cells but the header (line 1) has 6 columns"));
  e = error_of(h + "1,2,bf16,3,torch\n");
  CHECK(has(e, "gemm.csv:2:17: row has 5 cells but the header (line 1) has 6 columns"));

  e = error_of(h + "1,2.5,bf16,3,torch,4\n");
  CHECK(has(e, "gemm.csv:2:3: column 'k': '2.5' is not an integer"));
  CHECK(has(error_of(h + "1,x,bf16,3,torch,4\n"), "column 'k': 'x' is not an integer"));
  CHECK(has(error_of(h + "1,2,,3,torch,4\n"), "gemm.csv:2:5: column 'dtype': '' is empty"));
  CHECK(has(error_of(h + "1,2,bf16,3m,torch,4\n"), "gemm.csv:2:10: column 'm': '3m' is not a number"));
  CHECK(has(error_of(h + "1,2,bf16,nan,torch,4\n"), "column 'm': 'nan' is not a finite number"));
  CHECK(has(error_of(h + "1,2,bf16,,torch,4\n"), "column 'm': '' is not a number"));
  CHECK(has(error_of(h + "1,2,bf16,3,,4\n"), "gemm.csv:2:12: column 'backend': '' is empty"));
  CHECK(has(error_of(h + "1,2,bf16,3,torch,fast\n"), "gemm.csv:2:18: column 'time_ms': 'fast' is not a number"));
  CHECK(has(error_of(h + "1,2,bf16,3,torch,\n"), "column 'time_ms': '' is not a number"));
  const std::string eh = "n,k,dtype,m,backend,time_ms,energy_j\n";
  CHECK(has(error_of(eh + "1,2,bf16,3,torch,4,lots\n"), "gemm.csv:2:20: column 'energy_j': 'lots' is not a number"));
}

TEST_CASE("profile csv: duplicate key names both lines") {
  const std::string h(header);
  const auto e = error_of(h + "1,2,bf16,3,torch,4\n1,2,bf16,4,torch,4\n# c\n01,2,bf16,3.0,torch,9\n");
  CHECK(has(e, "gemm.csv:5:1: duplicate row: (n=1, k=2, dtype=bf16, m=3, backend=torch) was already measured on "
               "line 2"));
  // Another backend, or another input, is not a duplicate.
  CHECK(load(h + "1,2,bf16,3,torch,4\n1,2,bf16,3,cublaslt,4\n1,2,bf16,4,torch,4\n").point_count() == 3);
  // A row dropped for its time still counts: the file is malformed either way.
  CHECK(has(error_of(h + "1,2,bf16,3,torch,nan\n1,2,bf16,3,torch,4\n"), "already measured on line 2"));
  // Groups need not be contiguous (the loader looks a row's group up past the last one):
  // a group's rows after another's join it, and its duplicates are still found; -0 is 0.
  const ProfileTable t = load(h + "1,2,bf16,3,torch,4\n5,6,bf16,3,torch,4\n1,2,bf16,7,torch,5\n");
  REQUIRE(t.groups().size() == 2);
  CHECK(t.groups()[0].points.size() == 2);
  CHECK(t.groups()[0].points[1].line == 4);
  CHECK(has(error_of(h + "1,2,bf16,3,torch,4\n5,6,bf16,3,torch,4\n1,2,bf16,3,torch,5\n"), "already measured on line 2"));
  CHECK(has(error_of(h + "1,2,bf16,0,torch,4\n1,2,bf16,-0,torch,5\n"), "gemm.csv:3:1: duplicate row"));
}

TEST_CASE("profile csv: quotes and invalid UTF-8 are errors naming the line") {
  const std::string h(header);
  CHECK(has(error_of(h + "1,2,\"bf16\",3,torch,4\n"), "gemm.csv:2:5: quoted cells are not supported"));
  CHECK(has(error_of("n,k,\"dtype\",m,backend,time_ms\n"), "gemm.csv:1:5: quoted cells"));
  CHECK(has(error_of(h + "1,2,bf\xFF,3,torch,4\n"), "gemm.csv:2:7: invalid UTF-8 byte 0xFF"));
  CHECK(has(error_of(h + "1,2,bf\xC3,3,torch,4\n"), "invalid UTF-8 byte 0xC3"));  // truncated sequence
  CHECK(has(error_of(h + "1,2,\xC0\xAF,3,torch,4\n"), "invalid UTF-8 byte 0xC0"));  // overlong
  // A quote inside a comment is just comment text.
  CHECK(load("# \"quoted\" comment\n" + h).empty());
}

TEST_CASE("profile csv: bad measurements are dropped with a warning, not an error") {
  const std::string text = std::string(header) +
                           "1,2,bf16,1,torch,0.5\n"
                           "1,2,bf16,2,torch,nan\n"
                           "1,2,bf16,3,torch,inf\n"
                           "1,2,bf16,4,torch,-0.1\n"
                           "1,2,bf16,5,torch,0\n"
                           "1,2,bf16,6,torch,0.7\n";
  std::vector<std::string> w;
  const auto t = load(text, &w);
  REQUIRE(t.groups().size() == 1);
  REQUIRE(t.groups()[0].points.size() == 2);
  CHECK(t.groups()[0].points[1].inputs[0] == 6);
  REQUIRE(w.size() == 4);
  CHECK(w[0] == "gemm.csv:3:18: dropped row: column 'time_ms': 'nan' is not finite; a measured time must be "
                "finite and > 0");
  CHECK(has(w[1], "gemm.csv:4:18: dropped row: column 'time_ms': 'inf' is not finite"));
  CHECK(has(w[2], "gemm.csv:5:18: dropped row: column 'time_ms': '-0.1' is negative"));
  CHECK(has(w[3], "gemm.csv:6:18: dropped row: column 'time_ms': '0' is 0"));
  CHECK_NOTHROW(load(text, nullptr));  // no sink: warnings are ignored

  w.clear();
  const auto e = load("n,k,dtype,m,backend,time_ms,energy_j\n1,2,bf16,1,torch,0.5,-3\n1,2,bf16,2,torch,0.5,inf\n", &w);
  REQUIRE(w.size() == 2);
  CHECK(has(w[0], "gemm.csv:2:22: column 'energy_j': '-3' is not a finite value >= 0; energy ignored"));
  CHECK(std::isnan(e.groups()[0].points[0].energy_j));
  CHECK(e.groups()[0].points[0].time_ms == 0.5);

  w.clear();
  const auto empty = load(std::string(header) + "1,2,bf16,1,torch,0\n", &w);
  CHECK(empty.empty());
  CHECK(w.size() == 2);
  CHECK(has(w[1], "gemm.csv:1:1: the table has no usable rows"));
}

TEST_CASE("profile csv: a bad schema is an InputError") {
  const ProfileSchema reserved{"x", {{"backend", ColumnType::text}}, {"m"}};
  CHECK_THROWS_AS(costdsl::load_profile_csv_text("backend,m,time_ms\n", "f", reserved), InputError);
  const ProfileSchema twice{"x", {{"m", ColumnType::integer}}, {"m"}};
  CHECK_THROWS_WITH_AS(costdsl::load_profile_csv_text("m,backend,time_ms\n", "f", twice),
                       "profile schema 'x': column 'm' is declared twice", InputError);
  const ProfileSchema unnamed{"x", {}, {""}};
  CHECK_THROWS_AS(costdsl::load_profile_csv_text("backend,time_ms\n", "f", unnamed), InputError);
}

TEST_CASE("profile csv: path overload reads data/profiles/<gpu>/<kind>.csv") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / "costdsl_test_profile_csv";
  fs::remove_all(dir);
  const fs::path file = costdsl::profile_csv_path(dir, "h200_sxm", "gemm");
  CHECK(file == dir / "profiles" / "h200_sxm" / "gemm.csv");
  fs::create_directories(file.parent_path());
  {
    std::ofstream out(file, std::ios::binary);
    out << header << "1,2,bf16,3,torch,4\n1,2,bf16,3.5,torch,x\n";
  }
  try {
    costdsl::load_profile_csv(file, gemm_schema());
    FAIL("expected a DataError");
  } catch (const DataError& e) {
    CHECK(has(e.what(), file.string() + ":3:20: column 'time_ms': 'x' is not a number"));
  }
  {
    std::ofstream out(file, std::ios::binary);
    out << header << "1,2,bf16,3,torch,4\n";
  }
  const auto t = costdsl::load_profile_csv(file, gemm_schema());
  CHECK(t.file() == file.string());
  CHECK(t.point_count() == 1);
  CHECK_THROWS_WITH_AS(costdsl::load_profile_csv(dir / "missing.csv", gemm_schema()),
                       doctest::Contains("cannot open"), DataError);
  fs::remove_all(dir);
}

// A kernel with several measured backends answers with the fastest, and with exactly
// what that backend's table answers alone, whether the tables share one m grid or not.
// Linear measurements interpolate and extrapolate exactly on linear axes (neither grid is
// geometric, which would be detected as a log axis), so the expected time is the
// smallest of three lines: cublaslt below m = 50, sglang to m = 100, vllm above.
TEST_CASE("profile tables: a kernel's backends on one grid or on several answer as each table alone") {
  namespace fs = std::filesystem;
  using costdsl::Kernel;
  using costdsl::kernels::Gemm;
  struct Line {
    const char* backend;
    double fixed_ms, per_row_ms;
  };
  const Line lines[] = {{"cublaslt", 0.010, 0.0010}, {"sglang", 0.020, 0.0008}, {"vllm", 0.030, 0.0007}};
  const auto line_ms = [&](std::size_t b, double m) { return lines[b].fixed_ms + lines[b].per_row_ms * m; };
  const std::vector<double> grid{1, 2, 4, 8, 16, 64, 256, 1024}, other_grid{3, 30, 100, 600, 3000};
  for (const bool one_grid : {true, false}) {
    CAPTURE(one_grid);
    const fs::path root = fs::temp_directory_path() / "costdsl_test_backend_grids";
    fs::remove_all(root);
    fs::create_directories(root / "h200_sxm");
    {
      std::ofstream out(root / "h200_sxm" / "gemm.csv", std::ios::binary);
      out << "dtype,n,k,m,backend,time_ms\n";
      for (std::size_t b = 0; b < 3; ++b)
        for (const double m : (b == 2 && !one_grid) ? other_grid : grid)
          out << "bf16,4096,4096," << m << ',' << lines[b].backend << ',' << line_ms(b, m) << '\n';
    }
    const costdsl::Timing timing = costdsl::load_timing("h200", costdsl::TimingMode::profile, root);
    const Kernel<Gemm> all(timing, {costdsl::Dtype::bf16, 4096, 4096});
    std::vector<Kernel<Gemm>> alone;
    for (const Line& l : lines) alone.emplace_back(timing, Gemm::Config{costdsl::Dtype::bf16, 4096, 4096},
                                                   std::vector<std::string>{l.backend});
    for (const std::uint64_t m : {1u, 3u, 5u, 16u, 40u, 64u, 70u, 99u, 150u, 256u, 700u, 1024u, 2000u, 5000u}) {
      CAPTURE(m);
      const costdsl::Metrics got = all.eval({m});
      std::size_t best = 0;
      for (std::size_t b = 1; b < 3; ++b)
        if (line_ms(b, double(m)) < line_ms(best, double(m))) best = b;
      CHECK(got.backend == best);
      CHECK(got.time_s == doctest::Approx(line_ms(best, double(m)) * 1e-3).epsilon(1e-12));
      // Bitwise what the winning table answers alone, with its coverage.
      const costdsl::Metrics own = alone[best].eval({m});
      CHECK(got.time_s == own.time_s);
      CHECK(got.coverage == own.coverage);
      const bool on_other_grid = best == 2 && !one_grid;
      const double first = on_other_grid ? 3 : 1, last = on_other_grid ? 3000 : 1024;
      CHECK(costdsl::has(got.coverage, costdsl::Coverage::extrapolated) == (double(m) < first || double(m) > last));
    }
    fs::remove_all(root);
  }
}

// Kernel::eval's short path (taken when binding found one table) answers exactly what the
// general path answers: time_and_work takes the short path, with_energy the general one,
// and only energy may differ. Covered: one exact table (on, between and off its grid,
// no launch), a bounded backend alone (off its grid it has no answer: the roofline or, in
// profile mode, no coverage), and a blended config (four corners: the general path only).
TEST_CASE("profile tables: the one-table short path answers as the general path") {
  namespace fs = std::filesystem;
  using costdsl::Coverage;
  using costdsl::Kernel;
  using costdsl::Metrics;
  using costdsl::Quantities;
  using costdsl::kernels::AllReduce;
  using costdsl::kernels::Gemm;
  const fs::path root = fs::temp_directory_path() / "costdsl_test_short_path";
  fs::remove_all(root);
  fs::create_directories(root / "h200_sxm");
  {
    std::ofstream out(root / "h200_sxm" / "gemm.csv", std::ios::binary);
    out << "dtype,n,k,m,backend,time_ms\n";
    for (const int n : {1024, 4096})
      for (const int k : {1024, 4096})
        for (const double m : {1, 8, 64, 512, 4096}) out << "bf16," << n << ',' << k << ',' << m << ",sglang," << 0.01 + 1e-9 * n * k * m / 4096 << '\n';
  }
  {
    std::ofstream out(root / "h200_sxm" / "all_reduce.csv", std::ios::binary);
    out << "num_gpus,bytes,backend,time_ms\n";
    for (const double bytes : {1024, 65536, 1048576}) out << "8," << bytes << ",custom," << 0.005 + 1e-8 * bytes << '\n';
  }
  const auto same_but_energy = [](const Metrics& fast, const Metrics& general) {
    CHECK(fast.time_s == general.time_s);
    CHECK(fast.flops == general.flops);
    CHECK(fast.bytes == general.bytes);
    CHECK(fast.coverage == general.coverage);
    CHECK(fast.backend == general.backend);
    CHECK(fast.energy_j == 0);
  };
  for (const auto mode : {costdsl::TimingMode::automatic, costdsl::TimingMode::profile}) {
    CAPTURE(static_cast<int>(mode));
    const costdsl::Timing timing = costdsl::load_timing("h200", mode, root);
    const Kernel<Gemm> exact(timing, {costdsl::Dtype::bf16, 4096, 1024});
    const Kernel<Gemm> blended(timing, {costdsl::Dtype::bf16, 2048, 2048});
    CHECK(exact.source() == "profile");
    CHECK(blended.source() == "profile");
    for (const std::uint64_t m : {0u, 1u, 5u, 64u, 100u, 4096u, 10000u}) {
      CAPTURE(m);
      same_but_energy(exact.eval<Quantities::time_and_work>({m}), exact.eval<Quantities::with_energy>({m}));
      same_but_energy(blended.eval<Quantities::time_and_work>({m}), blended.eval<Quantities::with_energy>({m}));
    }
    CHECK(costdsl::has(exact.eval<Quantities::time_and_work>({10000}).coverage, Coverage::extrapolated));
    const Kernel<AllReduce> custom(timing, {8}, {"custom"});
    CHECK(custom.source() == "profile");
    for (const std::uint64_t bytes : {0u, 512u, 1024u, 5000u, 1048576u, 4194304u}) {
      CAPTURE(bytes);
      const Metrics fast = custom.eval<Quantities::time_and_work>({bytes});
      same_but_energy(fast, custom.eval<Quantities::with_energy>({bytes}));
      // Off its grid the bounded backend has no answer: the leaf falls back, never extrapolates.
      const bool on_grid = bytes >= 1024 && bytes <= 1048576;
      CHECK(fast.backend == (on_grid ? 0 : costdsl::no_backend));
      if (bytes != 0) CHECK(costdsl::has(fast.coverage, Coverage::no_coverage) == !on_grid);
    }
  }
  fs::remove_all(root);
}

// A profile root of the tests below: DIR/h200_sxm/ fresh, removed at the end.
struct ScratchProfiles {
  std::filesystem::path root;
  explicit ScratchProfiles(std::string_view name) : root(std::filesystem::temp_directory_path() / name) {
    std::filesystem::remove_all(root);
    std::filesystem::create_directories(root / "h200_sxm");
  }
  ~ScratchProfiles() { std::filesystem::remove_all(root); }
  ScratchProfiles(const ScratchProfiles&) = delete;
  ScratchProfiles& operator=(const ScratchProfiles&) = delete;
  // h200_sxm/<kind>.csv for writing, at full precision.
  std::ofstream table(std::string_view kind) const {
    std::ofstream out(root / "h200_sxm" / (std::string(kind) + ".csv"), std::ios::binary);
    out.precision(17);
    return out;
  }
  costdsl::Timing timing(costdsl::TimingMode mode) const { return costdsl::load_timing("h200", mode, root); }
  // all/h200_sxm/, the complete tables' folder.
  std::filesystem::path all() const {
    const std::filesystem::path dir = root / "all" / "h200_sxm";
    std::filesystem::create_directories(dir);
    return dir;
  }
  // A kind's complete table (gzipped) and its index.
  void complete(std::string_view kind, const std::string& table, const std::string& index) const {
    std::ofstream(all() / (std::string(kind) + ".csv.gz"), std::ios::binary) << costdsl::detail::gzip_text(table);
    std::ofstream(all() / (std::string(kind) + ".configs"), std::ios::binary) << index;
  }
};

// A table cell aiconfigurator did not measure (a quarter of its H100 attention grid) is
// estimated when the kernel binds: its measured neighbours' time over the roofline's,
// times the roofline's time of the missing call. With a measured efficiency that is
// constant along the grid lines the estimate is exact; the query says RENORMALIZED.
TEST_CASE("profile tables: a missing attention cell is the neighbours' efficiency times the roofline") {
  namespace fs = std::filesystem;
  using costdsl::Coverage;
  using costdsl::Kernel;
  using costdsl::kernels::AttnPrefill;
  const ScratchProfiles dir("costdsl_test_missing_cell");
  const fs::path& root = dir.root;
  const costdsl::Timing roofline = costdsl::load_timing("h200", costdsl::TimingMode::roofline, root);
  const AttnPrefill::Config config{costdsl::Dtype::bf16, 32, 8, 128, 0};
  const auto roofline_ms = [&](std::uint64_t batch, std::uint64_t append) {
    return AttnPrefill::roofline(*roofline.roofline(), config, {batch, 0, append}).time_s * 1e3;
  };
  // The efficiency of a batch line: 0.6 for one request, 0.8 for more (fixed costs amortised).
  const auto efficiency = [](std::uint64_t batch) { return batch == 1 ? 0.6 : 0.8; };
  {
    std::ofstream out = dir.table("attn_prefill");
    out << "dtype,num_qo_heads,num_kv_heads,head_dim,batch,append,backend,time_ms\n";
    for (const std::uint64_t b : {1u, 2u, 4u})
      for (const std::uint64_t a : {512u, 1024u, 2048u})
        if (!(b == 4 && a == 2048))
          out << "bf16,32,8,128," << b << ',' << a << ",sglang," << efficiency(b) * roofline_ms(b, a) << '\n';
  }
  for (const auto mode : {costdsl::TimingMode::automatic, costdsl::TimingMode::profile}) {
    CAPTURE(static_cast<int>(mode));
    const costdsl::Timing timing = costdsl::load_timing("h200", mode, root);
    const Kernel<AttnPrefill> leaf(timing, config);
    // (4, 2048): its neighbours along batch (2, 2048) and along append (4, 1024) both run
    // at 0.8, so the estimate is 0.8 of the roofline; raw times renormalized would say
    // (2, 2048)'s and (4, 1024)'s, about half of it.
    const costdsl::Metrics m = leaf.eval({4, 0, 2048});
    CHECK(m.time_s * 1e3 == doctest::Approx(0.8 * roofline_ms(4, 2048)).epsilon(1e-9));
    CHECK(m.coverage == Coverage::renormalized);
    // Between the estimated cell and measured ones: bilinear over the four, flagged.
    const costdsl::Metrics between = leaf.eval({3, 0, 1536});
    CHECK(between.coverage == Coverage::renormalized);
    CHECK(between.time_s > leaf.eval({2, 0, 1024}).time_s);
    CHECK(between.time_s < m.time_s);
    // A cell of measured corners is untouched: exact, no flag.
    const costdsl::Metrics exact = leaf.eval({2, 0, 1024});
    CHECK(exact.time_s * 1e3 == doctest::Approx(0.8 * roofline_ms(2, 1024)).epsilon(1e-12));
    CHECK(exact.coverage == Coverage::none);
  }
}

// A table line extrapolated past its points can fall below what the hardware allows; an
// extrapolated answer is floored at the call's roofline lower bound, on the fast path (one
// table) and the general one alike, and stays flagged.
TEST_CASE("profile tables: an extrapolated answer is never below the hardware bound") {
  using costdsl::Coverage;
  using costdsl::Kernel;
  using costdsl::kernels::AllReduce;
  const ScratchProfiles dir("costdsl_test_extrapolation_floor");
  {
    std::ofstream out = dir.table("all_reduce");
    // Nearly flat in bytes: a latency-bound stretch whose slope says 64 MiB costs 16 µs.
    out << "num_gpus,bytes,backend,time_ms\n8,1048576,nccl,0.0100\n8,2097152,nccl,0.0101\n";
  }
  const costdsl::Timing timing = dir.timing(costdsl::TimingMode::automatic);
  const Kernel<AllReduce> leaf(timing, {8});
  const AllReduce::Input big{64ull << 20};
  const costdsl::Metrics m = leaf.eval(big);
  CHECK(has(m.coverage, Coverage::extrapolated));
  CHECK(m.time_s == doctest::Approx(leaf.lower_bound_s(big)));
  CHECK(m.time_s > 1e-4);  // the line alone: 0.0100 + 63 × 0.0001 ms = 16 µs
  // Inside the points nothing changes: the measured line.
  CHECK(leaf.eval({1572864}).time_s == doctest::Approx(0.01005e-3));
}

// A GEMM's measured m come in pairs (an aligned m and the row after it) on two curves: a
// held-back aligned m is its class's neighbours' line, not a line bridging the classes;
// an m of neither class and a table whose classes agree take the whole axis.
TEST_CASE("profile tables: a GEMM's aligned m and the rows past them interpolate apart") {
  using costdsl::Kernel;
  using costdsl::kernels::Gemm;
  const ScratchProfiles dir("costdsl_test_gemm_row_classes");
  const auto aligned_ms = [](double m) { return 0.01 + 0.001 * m; };
  const auto past_ms = [](double m) { return 0.05 + 0.002 * m; };  // another kernel, slower
  {
    std::ofstream out = dir.table("gemm");
    out << "dtype,n,k,m,backend,time_ms\n";
    for (int m = 1; m < 16; ++m) out << "fp8,4096,4096," << m << ",sglang," << past_ms(m) << '\n';
    for (int e = 16; e <= 1024; e += 16) {
      if (e != 512) out << "fp8,4096,4096," << e << ",sglang," << aligned_ms(e) << '\n';
      if (e != 256) out << "fp8,4096,4096," << e + 1 << ",sglang," << past_ms(e + 1) << '\n';
      // bf16's classes agree: one line, one curve.
      out << "bf16,4096,4096," << e << ",sglang," << aligned_ms(e) << '\n';
      out << "bf16,4096,4096," << e + 1 << ",sglang," << aligned_ms(e + 1) << '\n';
    }
  }
  const costdsl::Timing timing = dir.timing(costdsl::TimingMode::profile);
  const Kernel<Gemm> fp8(timing, {costdsl::Dtype::fp8, 4096, 4096});
  CHECK(fp8.eval({512}).time_s == doctest::Approx(aligned_ms(512) * 1e-3));  // between 496 and 528
  CHECK(fp8.eval({257}).time_s == doctest::Approx(past_ms(257) * 1e-3));     // between 241 and 273
  CHECK(fp8.eval({512}).coverage == costdsl::Coverage::none);
  // 300 is of neither class: the whole axis, between 289 (past an edge) and 304 (aligned).
  const double w = (300.0 - 289) / (304 - 289);
  CHECK(fp8.eval({300}).time_s == doctest::Approx(((1 - w) * past_ms(289) + w * aligned_ms(304)) * 1e-3));
  const Kernel<Gemm> bf16(timing, {costdsl::Dtype::bf16, 4096, 4096});
  CHECK(bf16.eval({300}).time_s == doctest::Approx(aligned_ms(300) * 1e-3));
}

// The complete tables (data/profiles/all/<gpu>/<kind>.csv.gz and its index): a config the
// shipped table lacks is measured from them; they are read only on such a miss, and only
// when the index lists the config: a corrupt complete table is never touched otherwise.
TEST_CASE("profile tables: a config the shipped table lacks answers from the complete table, read only then") {
  namespace fs = std::filesystem;
  using costdsl::Coverage;
  using costdsl::Kernel;
  using costdsl::kernels::AttnDecode;
  const ScratchProfiles dir("costdsl_test_complete_tables");
  const fs::path all = dir.all();
  const std::string header = "kv_dtype,num_qo_heads,num_kv_heads,head_dim,batch,total_kv,backend,time_ms\n";
  const auto rows = [](std::string_view heads, double ms) {
    std::string out;
    for (const int b : {1, 8})
      for (const int kv : {1024, 8192})
        out += fmt::format("bf16,{},128,{},{},sglang,{}\n", heads, b, b * kv, ms * b * kv / 1024.0);
    return out;
  };
  { std::ofstream(dir.root / "h200_sxm" / "attn_decode.csv", std::ios::binary) << header << rows("32,8", 0.01); }
  const std::string complete = header + rows("32,8", 0.01) + rows("24,8", 0.02);
  dir.complete("attn_decode", complete, "# index\nsglang,bf16,32,8,128\nsglang,bf16,24,8,128\n");
  const costdsl::Timing timing = dir.timing(costdsl::TimingMode::automatic);
  // In the shipped table: answered there.
  CHECK(Kernel<AttnDecode>(timing, {costdsl::Dtype::bf16, 32, 8, 128}).eval({8, 8 * 8192}).time_s ==
        doctest::Approx(0.01 * 64 * 1e-3));
  // Only in the complete one: measured from it, exact.
  const costdsl::Metrics m = Kernel<AttnDecode>(timing, {costdsl::Dtype::bf16, 24, 8, 128}).eval({8, 8 * 8192});
  CHECK(m.time_s == doctest::Approx(0.02 * 64 * 1e-3));
  CHECK(m.coverage == Coverage::none);

  // A truncated complete table: untouched while the shipped table answers or the index
  // lacks the config; a DataError naming it once a config in the index misses the shipped one.
  const std::string gz = costdsl::detail::gzip_text(complete);
  { std::ofstream(all / "attn_decode.csv.gz", std::ios::binary) << gz.substr(0, gz.size() / 2); }
  const costdsl::Timing damaged = dir.timing(costdsl::TimingMode::automatic);
  CHECK_NOTHROW(Kernel<AttnDecode>(damaged, {costdsl::Dtype::bf16, 32, 8, 128}));
  // 64 / 8 heads, measured nowhere: the nearest listed config (the index's keys, no
  // decompression) is 32 / 8, which the shipped table answers, scaled.
  const costdsl::Metrics scaled = Kernel<AttnDecode>(damaged, {costdsl::Dtype::bf16, 64, 8, 128}).eval({8, 8 * 8192});
  CHECK(scaled.time_s > 0);
  CHECK(scaled.coverage == Coverage::scaled);
  CHECK_THROWS_WITH_AS(Kernel<AttnDecode>(dir.timing(costdsl::TimingMode::automatic), {costdsl::Dtype::bf16, 24, 8, 128}),
                       doctest::Contains("attn_decode.csv.gz: truncated gzip stream"), costdsl::DataError);
  // An index line that is not a backend and the kind's config columns: FILE:LINE.
  { std::ofstream(all / "attn_decode.configs", std::ios::binary) << "sglang,bf16,24,8\n"; }
  CHECK_THROWS_WITH_AS(Kernel<AttnDecode>(dir.timing(costdsl::TimingMode::automatic), {costdsl::Dtype::bf16, 24, 8, 128}),
                       doctest::Contains("attn_decode.configs:1: 4 cells"), costdsl::DataError);
}

// Tables and indexes written before fused_moe's weight_dtype column: each row measured
// weights in its dtype, so a bf16-weight config answers from them, shipped or complete, and an
// mxfp4-weight one finds nothing there (the roofline).
TEST_CASE("profile tables: fused_moe tables and indexes without weight_dtype read as measured at dtype") {
  using costdsl::Coverage;
  using costdsl::ExpertLoad;
  using costdsl::Kernel;
  using costdsl::kernels::FusedMoe;
  const ScratchProfiles dir("costdsl_test_older_moe_tables");
  const std::string header = "dtype,hidden,moe_intermediate,num_experts,top_k,expert_load,rows,backend,time_ms\n";
  const auto rows = [](std::string_view shape, double ms) {
    std::string out;
    for (const int r : {1, 64, 1024}) out += fmt::format("bf16,{},balanced,{},sglang,{}\n", shape, r, ms * (1 + r / 64.0));
    return out;
  };
  { std::ofstream(dir.root / "h200_sxm" / "fused_moe.csv", std::ios::binary) << header << rows("2048,768,16,8", 0.02); }
  dir.complete("fused_moe", header + rows("2048,768,16,8", 0.02) + rows("4096,1536,16,8", 0.05),
               "# index\nsglang,bf16,2048,768,16,8,balanced\nsglang,bf16,4096,1536,16,8,balanced\n");
  const costdsl::Timing timing = dir.timing(costdsl::TimingMode::automatic);
  using C = FusedMoe::Config;
  const auto bf16 = [](std::uint64_t h, std::uint64_t i, costdsl::Dtype w) {
    return C{costdsl::Dtype::bf16, h, i, 16, 8, w, ExpertLoad::balanced};
  };
  const costdsl::Metrics shipped = Kernel<FusedMoe>(timing, bf16(2048, 768, costdsl::Dtype::bf16)).eval({64, 0});
  CHECK(shipped.time_s == doctest::Approx(0.02 * 2 * 1e-3));
  CHECK(shipped.coverage == Coverage::none);
  const costdsl::Metrics complete = Kernel<FusedMoe>(timing, bf16(4096, 1536, costdsl::Dtype::bf16)).eval({64, 0});
  CHECK(complete.time_s == doctest::Approx(0.05 * 2 * 1e-3));
  CHECK(complete.coverage == Coverage::none);
  CHECK(costdsl::has(Kernel<FusedMoe>(timing, bf16(2048, 768, costdsl::Dtype::mxfp4)).eval({64, 0}).coverage,
            Coverage::analytic));
}

// Complete gemm tables and their index written before the input_dtype column: every row took
// bf16 activations, so an fp8 GEMM that quantizes its own input answers from them and one whose
// producer wrote fp8 finds nothing there (the roofline, without the quantize).
TEST_CASE("profile tables: gemm tables and indexes without input_dtype read as measured with bf16 input") {
  using costdsl::Coverage;
  using costdsl::Dtype;
  using costdsl::Kernel;
  using costdsl::kernels::Gemm;
  const ScratchProfiles dir("costdsl_test_older_gemm_tables");
  const std::string header = "dtype,n,k,m,backend,time_ms\n";
  dir.complete("gemm", header + "fp8,4096,4096,1,sglang,0.02\nfp8,4096,4096,64,sglang,0.03\n",
               "# index\nsglang,fp8,4096,4096\n");
  const costdsl::Timing timing = dir.timing(costdsl::TimingMode::automatic);
  const costdsl::Metrics own = Kernel<Gemm>(timing, {Dtype::fp8, 4096, 4096}).eval({64});
  CHECK(own.time_s == doctest::Approx(0.03e-3));
  CHECK(own.coverage == Coverage::none);
  CHECK(costdsl::has(Kernel<Gemm>(timing, {Dtype::fp8, 4096, 4096, Dtype::fp8}).eval({64}).coverage,
                     Coverage::analytic));
}

// A head configuration no table holds (a user's own model) answers from the nearest// A head configuration no table holds (a user's own model) answers from the nearest
// measured configuration of its dtype, each cell scaled by the roofline's time ratio of
// the two, flagged SCALED. With measured times a fixed efficiency of the roofline the
// scaled answer is that efficiency of the query config's roofline; the nearest config is
// the one of the same GQA group.
TEST_CASE("profile tables: an unmeasured head configuration is its nearest neighbour's, scaled by the roofline") {
  namespace fs = std::filesystem;
  using costdsl::Coverage;
  using costdsl::Kernel;
  using costdsl::kernels::AttnDecode;
  const ScratchProfiles dir("costdsl_test_scaled_config");
  const fs::path& root = dir.root;
  const costdsl::Timing roofline = costdsl::load_timing("h200", costdsl::TimingMode::roofline, root);
  const auto roofline_ms = [&](const AttnDecode::Config& c, std::uint64_t batch, std::uint64_t kv) {
    return AttnDecode::roofline(*roofline.roofline(), c, {batch, kv}).time_s * 1e3;
  };
  using costdsl::Dtype;
  const AttnDecode::Config group4{Dtype::bf16, 32, 8, 128}, group1{Dtype::bf16, 64, 64, 128};
  {
    std::ofstream out = dir.table("attn_decode");
    out << "kv_dtype,num_qo_heads,num_kv_heads,head_dim,batch,total_kv,backend,time_ms\n";
    for (const std::uint64_t b : {1u, 8u, 64u})
      for (const std::uint64_t kv : {1024u, 8192u, 65536u}) {
        out << "bf16,32,8,128," << b << ',' << b * kv << ",sglang," << 0.5 * roofline_ms(group4, b, b * kv) << '\n';
        out << "bf16,64,64,128," << b << ',' << b * kv << ",sglang," << 0.9 * roofline_ms(group1, b, b * kv) << '\n';
      }
  }
  for (const auto mode : {costdsl::TimingMode::automatic, costdsl::TimingMode::profile}) {
    CAPTURE(static_cast<int>(mode));
    const costdsl::Timing timing = costdsl::load_timing("h200", mode, root);
    // 64 / 16 heads: group 4 like 32 / 8 (one octave of KV heads away), two octaves of
    // group from 64 / 64.
    const AttnDecode::Config own{Dtype::bf16, 64, 16, 128};
    const Kernel<AttnDecode> leaf(timing, own);
    CHECK(leaf.source() == "profile");
    for (const auto& [b, kv] : {std::pair<std::uint64_t, std::uint64_t>{8, 8 * 8192}, {64, 64 * 1024}}) {
      const costdsl::Metrics m = leaf.eval({b, kv});
      CHECK(m.time_s * 1e3 == doctest::Approx(0.5 * roofline_ms(own, b, kv)).epsilon(1e-9));
      CHECK(m.coverage == Coverage::scaled);
    }
    // Between grid points the scaled table interpolates as a measured one does.
    CHECK(leaf.eval({16, 16 * 4096}).coverage == Coverage::scaled);
    // A measured config is untouched, and another KV dtype has no neighbour.
    CHECK(leaf.eval({8, 8 * 8192}).time_s != Kernel<AttnDecode>(timing, group4).eval({8, 8 * 8192}).time_s);
    CHECK(Kernel<AttnDecode>(timing, group4).eval({8, 8 * 8192}).coverage == Coverage::none);
    const Kernel<AttnDecode> fp8(timing, {Dtype::fp8, 64, 16, 128});
    CHECK(fp8.source() == "roofline");
    if (mode == costdsl::TimingMode::automatic) CHECK(fp8.eval({8, 8 * 8192}).coverage == Coverage::analytic);
  }
}

// A preferred framework (Timing::with_kernel_framework) takes its own table where it holds
// the config and sets the other frameworks' aside, even when they are faster; where it
// does not, the fastest measurement answers as with no preference. Backends that are no
// framework's keep competing.
TEST_CASE("profile tables: a preferred framework's kernels, where its table holds the config") {
  namespace fs = std::filesystem;
  using costdsl::Kernel;
  using costdsl::kernels::Gemm;
  const ScratchProfiles dir("costdsl_test_kernel_framework");
  const fs::path& root = dir.root;
  {
    std::ofstream out(root / "h200_sxm" / "gemm.csv", std::ios::binary);
    out << "dtype,n,k,m,backend,time_ms\n";
    for (const int m : {1, 64, 4096}) {
      out << "bf16,4096,4096," << m << ",sglang," << 0.010 + 1e-5 * m << '\n';
      out << "bf16,4096,4096," << m << ",trtllm," << 0.020 + 1e-5 * m << '\n';  // slower
      out << "bf16,8192,4096," << m << ",sglang," << 0.030 + 1e-5 * m << '\n';  // sglang only
      out << "bf16,1024,1024," << m << ",cublaslt," << 0.001 + 1e-6 * m << '\n';
      out << "bf16,1024,1024," << m << ",trtllm," << 0.002 + 1e-6 * m << '\n';
    }
  }
  const costdsl::Timing any = costdsl::load_timing("h200", costdsl::TimingMode::profile, root);
  const costdsl::Timing trtllm = any.with_kernel_framework("trtllm");
  CHECK(any.kernel_framework().empty());
  CHECK(trtllm.kernel_framework() == "trtllm");
  const auto backend = [](const Kernel<Gemm>& k) { return k.backends()[k.eval({64}).backend]; };
  const Gemm::Config square{costdsl::Dtype::bf16, 4096, 4096}, wide{costdsl::Dtype::bf16, 8192, 4096},
      small{costdsl::Dtype::bf16, 1024, 1024};
  CHECK(backend(Kernel<Gemm>(any, square)) == "sglang");  // the fastest
  CHECK(backend(Kernel<Gemm>(trtllm, square)) == "trtllm");
  CHECK(Kernel<Gemm>(trtllm, square).eval({64}).time_s == doctest::Approx((0.020 + 64e-5) * 1e-3));
  CHECK(backend(Kernel<Gemm>(trtllm, wide)) == "sglang");     // no TensorRT-LLM table for it
  CHECK(backend(Kernel<Gemm>(trtllm, small)) == "cublaslt");  // no framework's: competes
  CHECK_THROWS_WITH_AS(any.with_kernel_framework("tensorrt"),
                       doctest::Contains("kernel framework 'tensorrt' is not one of sglang, trtllm, vllm"),
                       costdsl::InputError);
}

// A kind the deployment runs with a kernel no table measures (Timing::with_roofline_kinds)
// takes the roofline though a table holds its config; other kinds keep their tables, and
// the two bindings answer apart (their requests differ: same_answers_as).
TEST_CASE("profile tables: kinds a deployment runs unmeasured take the roofline") {
  namespace fs = std::filesystem;
  using costdsl::Kernel;
  using costdsl::kernels::Gemm;
  const ScratchProfiles dir("costdsl_test_roofline_kinds");
  {
    std::ofstream out(dir.root / "h200_sxm" / "gemm.csv", std::ios::binary);
    out << "dtype,n,k,m,backend,time_ms\n";
    for (const int m : {1, 64, 4096}) out << "bf16,4096,4096," << m << ",sglang," << 0.010 + 1e-5 * m << '\n';
  }
  const costdsl::Timing timing = costdsl::load_timing("h200", costdsl::TimingMode::automatic, dir.root);
  const costdsl::Timing unmeasured = timing.with_roofline_kinds({"gemm"});
  const costdsl::Timing other = timing.with_roofline_kinds({"fused_moe"});
  CHECK(unmeasured.takes_roofline("gemm"));
  CHECK_FALSE(timing.takes_roofline("gemm"));
  const Gemm::Config c{costdsl::Dtype::bf16, 4096, 4096};
  const Kernel<Gemm> measured(timing, c), analytic(unmeasured, c), kept(other, c);
  CHECK(measured.source() == "profile");
  CHECK(measured.eval({64}).time_s == doctest::Approx((0.010 + 64e-5) * 1e-3).scale(0));
  CHECK(analytic.source() == "roofline");
  CHECK(analytic.eval({64}).coverage == costdsl::Coverage::analytic);
  CHECK(analytic.eval({64}).time_s != doctest::Approx(measured.eval({64}).time_s).scale(0));
  CHECK(kept.source() == "profile");
  CHECK_FALSE(analytic.same_answers_as(measured));
  CHECK(kept.same_answers_as(measured));
}

// Who measured a table (the optional framework and version columns) names the group and
// the leaf that answers from it; each distinct text once, in file order.
TEST_CASE("profile csv: a provenance cell \"=\" repeats the cell above it") {
  // The same rows written out in full and with dittos read alike; a ditto follows the row
  // above, dropped or not, and a changed cell starts a new run.
  const std::string full =
      "n,k,dtype,m,backend,time_ms,framework,version,source\n"
      "8,8,bf16,1,sglang,0.01,SGLang,0.5.14,torch\n"
      "8,8,bf16,2,sglang,0,SGLang,0.5.14,torch\n"
      "8,8,bf16,3,sglang,0.03,SGLang,0.5.14,torch\n"
      "8,8,bf16,1,vllm,0.04,vLLM,0.24.0,torch\n"
      "8,8,bf16,2,vllm,0.05,vLLM,0.25.dev1,torch\n";
  const std::string ditto =
      "n,k,dtype,m,backend,time_ms,framework,version,source\n"
      "8,8,bf16,1,sglang,0.01,SGLang,0.5.14,torch\n"
      "8,8,bf16,2,sglang,0,=,=,=\n"
      "8,8,bf16,3,sglang,0.03,=,=,=\n"
      "8,8,bf16,1,vllm,0.04,vLLM,0.24.0,=\n"
      "8,8,bf16,2,vllm,0.05,=,0.25.dev1,=\n";
  const ProfileTable a = load(full), b = load(ditto);
  REQUIRE(a.groups().size() == 2);
  REQUIRE(b.groups().size() == 2);
  for (std::size_t g = 0; g < 2; ++g) {
    CHECK(a.groups()[g].provenance == b.groups()[g].provenance);
    CHECK(a.groups()[g].points.size() == b.groups()[g].points.size());
  }
  CHECK(b.groups()[0].provenance == "SGLang 0.5.14");
  CHECK(b.groups()[1].provenance == "vLLM 0.24.0, vLLM 0.25.dev1");
  // The first row has nothing above it.
  CHECK_THROWS_WITH_AS(load("n,k,dtype,m,backend,time_ms,framework,version,source\n8,8,bf16,1,sglang,0.01,SGLang,=,x\n"),
                       "gemm.csv:2:31: column 'version': '=' repeats the cell above it, but this is the first row",
                       costdsl::DataError);
}

TEST_CASE("profile csv: a config column with a default takes the other column's value where the file lacks it") {
  const ProfileSchema s{"moe",
                        {{"dtype", ColumnType::text}, {"hidden", ColumnType::integer}, {"weight_dtype", ColumnType::text,
                                                                                         "dtype"}},
                        {"rows"}};
  // Without the column every row measured weights in its activations' dtype.
  const ProfileTable old = costdsl::load_profile_csv_text(
      "dtype,hidden,rows,backend,time_ms\nbf16,64,1,x,0.1\nfp8,64,1,x,0.05\n", "moe.csv", s);
  REQUIRE(old.groups().size() == 2);
  CHECK(old.find({"bf16", "64", "bf16"}, "x") != nullptr);
  CHECK(old.find({"fp8", "64", "fp8"}, "x") != nullptr);
  // With it, each row says.
  const ProfileTable now = costdsl::load_profile_csv_text(
      "dtype,hidden,weight_dtype,rows,backend,time_ms\nbf16,64,mxfp4,1,x,0.2\nbf16,64,bf16,1,x,0.1\n", "moe.csv", s);
  CHECK(now.find({"bf16", "64", "mxfp4"}, "x") != nullptr);
  CHECK(now.find({"bf16", "64", "bf16"}, "x") != nullptr);
  // Still required: the columns without a default; and the default names a column of the schema.
  CHECK_THROWS_WITH_AS(costdsl::load_profile_csv_text("hidden,rows,backend,time_ms\n", "moe.csv", s),
                       doctest::Contains("missing column 'dtype' for kind 'moe' (expected columns: dtype, hidden, "
                                         "weight_dtype (optional: as dtype), rows"),
                       costdsl::DataError);
  ProfileSchema bad = s;
  bad.config[2].default_from = "kv_dtype";
  CHECK_THROWS_WITH_AS(costdsl::load_profile_csv_text("x", "moe.csv", bad),
                       "profile schema 'moe': column 'weight_dtype' defaults to 'kv_dtype', which must be another "
                       "config column of its type without a default",
                       costdsl::InputError);
}

TEST_CASE("profile csv: a config column with a constant default takes that value where the file lacks it") {
  const ProfileSchema s{"gemm",
                        {{"dtype", ColumnType::text}, {"n", ColumnType::integer}, {"input_dtype", ColumnType::text, "",
                                                                                    "bf16"}},
                        {"m"}};
  // Without the column every row was measured at the one value (gemm: bf16 activations in).
  const ProfileTable old = costdsl::load_profile_csv_text(
      "dtype,n,m,backend,time_ms\nfp8,64,1,x,0.1\nbf16,64,1,x,0.05\n", "gemm.csv", s);
  CHECK(old.find({"fp8", "64", "bf16"}, "x") != nullptr);
  CHECK(old.find({"bf16", "64", "bf16"}, "x") != nullptr);
  CHECK(old.find({"fp8", "64", "fp8"}, "x") == nullptr);
  const ProfileTable now = costdsl::load_profile_csv_text(
      "dtype,n,input_dtype,m,backend,time_ms\nfp8,64,fp8,1,x,0.07\nfp8,64,bf16,1,x,0.1\n", "gemm.csv", s);
  CHECK(now.find({"fp8", "64", "fp8"}, "x") != nullptr);
  CHECK(now.find({"fp8", "64", "bf16"}, "x") != nullptr);
  CHECK_THROWS_WITH_AS(costdsl::load_profile_csv_text("n,m,backend,time_ms\n", "gemm.csv", s),
                       doctest::Contains("(expected columns: dtype, n, input_dtype (optional: bf16), m"),
                       costdsl::DataError);
  ProfileSchema both = s;
  both.config[2].default_from = "dtype";
  CHECK_THROWS_WITH_AS(costdsl::load_profile_csv_text("x", "gemm.csv", both),
                       "profile schema 'gemm': column 'input_dtype' has both a default column and a default value",
                       costdsl::InputError);
  // The gemm kind declares it so.
  const ProfileSchema g = costdsl::profile_schema<costdsl::kernels::Gemm>();
  REQUIRE(g.config.size() == 4);
  CHECK(g.config[3].name == "input_dtype");
  CHECK(g.config[3].default_value == "bf16");
  CHECK(g.default_source(3) == 3);
}

TEST_CASE("profile tables: a group's provenance and the leaf's") {
  namespace fs = std::filesystem;
  using costdsl::Kernel;
  using costdsl::kernels::Gemm;
  const ScratchProfiles dir("costdsl_test_provenance");
  const fs::path& root = dir.root;
  {
    std::ofstream out(root / "h200_sxm" / "gemm.csv", std::ios::binary);
    out << "dtype,n,k,m,backend,time_ms,framework,version,source\n"
           "bf16,4096,4096,1,sglang,0.01,SGLang,0.5.14,torch\n"
           "bf16,4096,4096,64,sglang,0.02,SGLang,0.5.14,torch\n"
           "bf16,4096,4096,1,vllm,0.03,vLLM,0.24.0,torch\n"
           "bf16,4096,4096,64,vllm,0.04,vLLM,0.25.dev1,torch\n"
           "bf16,4096,4096,128,vllm,0.05,vLLM,0.24.0,torch\n"
           "bf16,8192,8192,1,sglang,0.01,,,torch\n";
  }
  const costdsl::ProfileTable t = costdsl::load_profile_csv(root / "h200_sxm" / "gemm.csv", costdsl::ProfileSchema{
      "gemm", {{"dtype", costdsl::ColumnType::text}, {"n", costdsl::ColumnType::integer},
               {"k", costdsl::ColumnType::integer}}, {"m"}});
  CHECK(t.find({"bf16", "4096", "4096"}, "sglang")->provenance == "SGLang 0.5.14");
  CHECK(t.find({"bf16", "4096", "4096"}, "vllm")->provenance == "vLLM 0.24.0, vLLM 0.25.dev1");
  CHECK(t.find({"bf16", "8192", "8192"}, "sglang")->provenance.empty());
  const costdsl::Timing timing = costdsl::load_timing("h200", costdsl::TimingMode::automatic, root);
  const Kernel<Gemm> k(timing, {costdsl::Dtype::bf16, 4096, 4096}, {"sglang", "vllm"});
  CHECK(k.provenance() == std::vector<std::string>{"SGLang 0.5.14", "vLLM 0.24.0, vLLM 0.25.dev1"});
  // Rows without the columns, or no table: no provenance.
  CHECK(Kernel<Gemm>(timing, {costdsl::Dtype::bf16, 8192, 8192}, {"sglang"}).provenance() ==
        std::vector<std::string>{""});
  CHECK(Kernel<Gemm>(timing, {costdsl::Dtype::fp8, 4096, 4096}, {"sglang"}).provenance() ==
        std::vector<std::string>{""});
}
