// The bad-input catalogue, library level (README.md in this folder lists every case
// with its expected answer). Each case feeds one malformed or out-of-range input and
// asserts the one answer costdsl owes it: either a costdsl exception of the exact type
// whose message names the field, the value and the rule (and FILE:LINE:COL for a
// data file), or a finite number carrying the right coverage flag. Never a crash, a
// std:: exception, a NaN/inf, or a silently wrong number.
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "costdsl/costdsl.hpp"
#include "costdsl/archs/deepseek_v3.hpp"
#include "costdsl/archs/llama3.hpp"
#include "costdsl/archs/qwen3_moe.hpp"
#include "costdsl/error.hpp"
#include "costdsl/hf_config.hpp"
#include "costdsl/kernels/gemm.hpp"
#include "costdsl/profile_csv.hpp"
#include "costdsl/timing.hpp"

using namespace costdsl;
using namespace costdsl::archs;
namespace fs = std::filesystem;

namespace {

bool has(std::string_view s, std::string_view needle) { return s.find(needle) != std::string_view::npos; }

// The message of the exception `f` throws if it is exactly an E (or derived);
// anything else is reported in the returned text so the CHECK that uses it fails
// with the reason visible.
template <class E>
std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const E& e) {
    return e.what();
  } catch (const std::exception& e) {
    return std::string("<wrong exception type: ") + e.what() + ">";
  }
  return "<no exception>";
}

// Asserts: exactly an E, and the message holds every needle.
template <class E>
void check_error(const std::function<void()>& f, std::initializer_list<std::string_view> needles) {
  const std::string msg = error_of<E>(f);
  INFO("message: ", msg);
  for (std::string_view n : needles) CHECK_MESSAGE(has(msg, n), "missing '", n, "'");
}

bool finite(const Metrics& m) {
  return std::isfinite(m.time_s) && std::isfinite(m.flops) && std::isfinite(m.bytes) && std::isfinite(m.energy_j) &&
         m.time_s >= 0;
}

// ---- profile tables --------------------------------------------------------

ProfileSchema gemm_schema() { return profile_schema<kernels::Gemm>(); }  // dtype, n, k | m

constexpr std::string_view gemm_header = "dtype,n,k,m,backend,time_ms\n";

ProfileTable load_csv(std::string_view text, std::vector<std::string>* warnings = nullptr) {
  return load_profile_csv_text(text, "t/gemm.csv", gemm_schema(), warnings);
}

// A fresh profile root per case: <root>/h200_sxm/<file>.
struct ProfileDir {
  fs::path root;
  explicit ProfileDir(std::string_view name) : root(fs::temp_directory_path() / ("costdsl_bad_input_" + std::string(name))) {
    fs::remove_all(root);
    fs::create_directories(root / "h200_sxm");
  }
  ~ProfileDir() {
    std::error_code ec;
    fs::remove_all(root, ec);
  }
  ProfileDir(const ProfileDir&) = delete;
  ProfileDir& operator=(const ProfileDir&) = delete;
  fs::path write(std::string_view file, std::string_view text, std::string_view gpu_dir = "h200_sxm") const {
    const fs::path p = root / gpu_dir / file;
    fs::create_directories(p.parent_path());
    std::ofstream out(p, std::ios::binary);
    out << text;
    return p;
  }
  Timing timing(TimingMode mode) const { return load_timing("h200", mode, root); }
};

// One bf16 gemm leaf (n = k = 4096) bound to `t`, evaluated at m.
Metrics gemm_at(const Timing& t, std::uint64_t m, std::vector<std::string> backends = {"cublaslt"}) {
  const Kernel<kernels::Gemm> k(t, {Dtype::bf16, 4096, 4096}, std::move(backends));
  return k.eval({m});
}

// ---- config.json -----------------------------------------------------------

nlohmann::json shipped(const char* file) {
  std::ifstream in(default_data_dir() / "models" / file);
  REQUIRE(in);
  return nlohmann::json::parse(in);
}
nlohmann::json llama_json() { return shipped("llama3_8b.json"); }
nlohmann::json qwen_json() { return shipped("qwen3_30b_a3b.json"); }
nlohmann::json deepseek_json() { return shipped("deepseek_v3.json"); }

HfConfig hf(const nlohmann::json& j) { return parse_hf_config(j.dump(), "cfg.json"); }

const Timing& roofline_h200() {
  static const Timing t = load_timing("h200", TimingMode::roofline);
  return t;
}

// Reading, partitioning and building: every check a config can fail runs here.
void build_llama(const nlohmann::json& j, std::uint32_t tp = 1) {
  const Llama3<Llama3Config> arch(Llama3Config::from_hf(hf(j), {.tp = tp}));
  (void)arch.build(roofline_h200());
}
void build_qwen(const nlohmann::json& j, std::uint32_t tp = 1, std::uint32_t ep = 1) {
  const Qwen3Moe<Qwen3MoeConfig> arch(Qwen3MoeConfig::from_hf(hf(j), {.tp = tp, .ep = ep}));
  (void)arch.build(roofline_h200());
}
// The TP-expert forms (ep 1 over tp > 1 GPUs: every expert split tp ways).
void build_qwen_tp_experts(const nlohmann::json& j, std::uint32_t tp, std::uint32_t ep = 1) {
  const Qwen3Moe<Qwen3MoeConfig, worklets::ExpertGrain::tp> arch(Qwen3MoeConfig::from_hf(hf(j), {.tp = tp, .ep = ep}));
  (void)arch.build(roofline_h200());
}
void build_deepseek_tp_experts(const nlohmann::json& j, std::uint32_t tp) {
  const DeepseekV3<DeepseekV3Config, AttnGrain::tp, worklets::ExpertGrain::tp> arch(
      DeepseekV3Config::from_hf(hf(j), {.tp = tp, .ep = 1}));
  (void)arch.build(roofline_h200());
}
void build_deepseek(const nlohmann::json& j, std::uint32_t tp = 1, std::uint32_t ep = 1) {
  const DeepseekV3<DeepseekV3Config> arch(DeepseekV3Config::from_hf(hf(j), {.tp = tp, .ep = ep}));
  (void)arch.build(roofline_h200());
}

nlohmann::json with(nlohmann::json j, const char* key, nlohmann::json v) {
  j[key] = std::move(v);
  return j;
}
nlohmann::json without(nlohmann::json j, const char* key) {
  j.erase(key);
  return j;
}

// ---- iterations --------------------------------------------------------------

struct Batch {
  std::vector<ops::PrefillChunk> prefill;
  std::vector<std::uint32_t> decode;
  Iteration it() const { return {prefill, decode}; }
};

Metrics eval_llama(const Batch& b, const Timing& t = roofline_h200()) {
  const Llama3<Llama3Config> arch(deploy(llama3_8b));
  return evaluate(arch.build(t), arch.inputs(b.it()));
}

}  // namespace

// =============================================================================
// Profile CSV (data/profiles/README.md: strict loader, bad measurements dropped)
// =============================================================================

TEST_CASE("bad_input: csv header only") {
  // A table with no rows loads (warning), and the leaf it would have timed says so.
  std::vector<std::string> w;
  const ProfileTable t = load_csv(std::string(gemm_header), &w);
  CHECK(t.empty());
  REQUIRE(w.size() == 1);
  CHECK(has(w[0], "t/gemm.csv:1:1: the table has no usable rows"));

  const ProfileDir dir("header_only");
  dir.write("gemm.csv", gemm_header);
  const Metrics m = gemm_at(dir.timing(TimingMode::profile), 128);
  CHECK(m.time_s == 0);
  CHECK(has(m.coverage, Coverage::no_coverage));
}

TEST_CASE("bad_input: csv cut mid-row") {
  // The last line ends inside a cell (a killed profiler, a truncated copy).
  const ProfileDir dir("cut");
  const fs::path p = dir.write("gemm.csv", std::string(gemm_header) + "bf16,4096,4096,64,cublaslt,0.05\nbf16,4096,40");
  check_error<DataError>([&] { gemm_at(dir.timing(TimingMode::automatic), 64); },
                         {p.string() + ":3:", "row has 3 cells but the header (line 1) has 6 columns"});
}

TEST_CASE("bad_input: csv missing column") {
  check_error<DataError>([] { load_csv("dtype,n,m,backend,time_ms\n"); },
                         {"t/gemm.csv:1:1:", "missing column 'k' for kind 'gemm'",
                          "expected columns: dtype, n, k, input_dtype (optional: bf16), m, backend, time_ms [, energy_j, framework, "
                          "version, source]"});
}

TEST_CASE("bad_input: csv unknown extra column") {
  check_error<DataError>([] { load_csv("dtype,n,k,m,backend,time_ms,stddev_ms\nbf16,1,1,1,x,1,0.1\n"); },
                         {"t/gemm.csv:1:29:", "unknown column 'stddev_ms' for kind 'gemm'", "expected columns"});
}

TEST_CASE("bad_input: csv ditto on the first row") {
  // "=" repeats the provenance cell above it; the first row has none to repeat.
  check_error<DataError>(
      [] { load_csv("dtype,n,k,m,backend,time_ms,framework\nbf16,1,1,1,x,1,=\n"); },
      {"t/gemm.csv:2:16:", "column 'framework': '=' repeats the cell above it, but this is the first row"});
}

TEST_CASE("bad_input: csv trailing comma (spreadsheet export)") {
  check_error<DataError>([] { load_csv("dtype,n,k,m,backend,time_ms,\n"); },
                         {"t/gemm.csv:1:29:", "header column 7 has no name"});
  check_error<DataError>([] { load_csv(std::string(gemm_header) + "bf16,1,1,1,x,1,\n"); },
                         {"t/gemm.csv:2:", "row has 7 cells but the header (line 1) has 6 columns"});
}

TEST_CASE("bad_input: csv quoted cell") {
  check_error<DataError>([] { load_csv(std::string(gemm_header) + "bf16,4096,4096,1,\"cublaslt\",0.5\n"); },
                         {"t/gemm.csv:2:18:", "quoted cells are not supported"});
}

TEST_CASE("bad_input: csv empty lines keep line numbers") {
  // Blank lines (and whitespace-only ones) are skipped, but still counted: an error
  // below them names the line an editor shows.
  const std::string text = std::string("\n  \n") + std::string(gemm_header) + "\n\t\nbf16,1,1,1,x,1\n\nbf16,1,1,z,x,1\n";
  check_error<DataError>([&] { load_csv(text); }, {"t/gemm.csv:8:10:", "column 'm': 'z' is not a number"});
  CHECK(load_csv(std::string(gemm_header) + "\n\nbf16,1,1,1,x,1\n\n").point_count() == 1);
}

TEST_CASE("bad_input: csv UTF-8 BOM") {
  // Accepted and skipped; columns of line 1 count from after it.
  const std::string bom = "\xEF\xBB\xBF";
  CHECK(load_csv(bom + std::string(gemm_header) + "bf16,1,1,1,x,1\n").point_count() == 1);
  check_error<DataError>([&] { load_csv(bom + "dtype,n,k,m,backend,time_ms,bogus\n"); }, {"t/gemm.csv:1:29:", "'bogus'"});
  // Only a leading BOM is skipped: a later one (files concatenated) would hide inside
  // a text cell, and the row's key would silently match nothing.
  check_error<DataError>([&] { load_csv(bom + std::string(gemm_header) + bom + "bf16,1,1,1,x,1\n"); },
                         {"t/gemm.csv:2:1: byte-order mark (U+FEFF) after the start of the file"});
}

TEST_CASE("bad_input: csv CRLF line endings") {
  std::vector<std::string> w;
  const ProfileTable t = load_csv("dtype,n,k,m,backend,time_ms\r\nbf16,1,1,1,x,0.5\r\nbf16,1,1,2,x,0\r\n", &w);
  CHECK(t.point_count() == 1);
  REQUIRE(w.size() == 1);
  CHECK(has(w[0], "'0' is 0"));  // the warning quotes the cell without its '\r'
  const std::string e = error_of<DataError>([] { load_csv("dtype,n,k,m,backend,time_ms\r\nbf16,1,1,1,x,slow\r\n"); });
  CHECK(has(e, "t/gemm.csv:2:14: column 'time_ms': 'slow' is not a number"));
  CHECK_FALSE(has(e, "\r"));
}

TEST_CASE("bad_input: csv bare CR line endings") {
  // Classic-Mac CR-only endings make the file one line; the CR is named, not echoed
  // (an echoed CR returns the terminal's cursor and hides the start of the message).
  const std::string e = error_of<DataError>([] { load_csv("dtype,n,k,m,backend,time_ms\rbf16,1,1,1,x,1\r"); });
  CHECK(has(e, "t/gemm.csv:1:28: control character 0x0D (a carriage return not before LF) inside a line"));
  CHECK(has(e, "lines end in LF or CRLF"));
  CHECK_FALSE(has(e, "\r"));
}

TEST_CASE("bad_input: csv NUL byte in a cell") {
  // what() is a C string: an echoed NUL would cut the message before its rule.
  const std::string text = std::string(gemm_header) + std::string("bf16,1,1,1,x,0.5\0", 17) + "1\n";
  const std::string e = error_of<DataError>([&] { load_csv(text); });
  CHECK(has(e, "t/gemm.csv:2:17: control character 0x00 inside a line"));
}

TEST_CASE("bad_input: csv invalid UTF-8 (Latin-1 text)") {
  check_error<DataError>([] { load_csv(std::string(gemm_header) + "bf16,1,1,1,cubl\xE9,1\n"); },
                         {"t/gemm.csv:2:16:", "invalid UTF-8 byte 0xE9; the file must be UTF-8"});
}

TEST_CASE("bad_input: csv non-numeric cells") {
  const std::string h(gemm_header);
  // A decimal comma splits the cell: the row has one cell too many.
  check_error<DataError>([&] { load_csv(h + "bf16,1,1,1,x,0,5\n"); },
                         {"t/gemm.csv:2:16:", "row has 7 cells but the header (line 1) has 6 columns"});
  check_error<DataError>([&] { load_csv(h + "bf16,1,1,0x40,x,1\n"); },
                         {"t/gemm.csv:2:10:", "column 'm': '0x40' is not a number"});
  check_error<DataError>([&] { load_csv(h + "bf16,4e3,1,1,x,1\n"); },
                         {"t/gemm.csv:2:6:", "column 'n': '4e3' is not an integer"});
  check_error<DataError>([&] { load_csv(h + "bf16,1,1,1,x,1 ms\n"); },
                         {"t/gemm.csv:2:14:", "column 'time_ms': '1 ms' is not a number"});
}

TEST_CASE("bad_input: csv numbers out of range") {
  const std::string h(gemm_header);
  // An integer config too large for 64 bits is named as such, not as "not an integer".
  check_error<DataError>([&] { load_csv(h + "bf16,99999999999999999999,1,1,x,1\n"); },
                         {"t/gemm.csv:2:6:", "column 'n': '99999999999999999999' is out of range for a 64-bit integer"});
  // 1e999 is a number that overflows a double: an input must be finite ...
  check_error<DataError>([&] { load_csv(h + "bf16,1,1,1e999,x,1\n"); },
                         {"t/gemm.csv:2:10:", "column 'm': '1e999' is not a finite number"});
  // ... and a time that overflows is dropped like inf.
  std::vector<std::string> w;
  CHECK(load_csv(h + "bf16,1,1,1,x,1e999\nbf16,1,1,2,x,1\n", &w).point_count() == 1);
  REQUIRE(w.size() == 1);
  CHECK(has(w[0], "t/gemm.csv:2:14: dropped row: column 'time_ms': '1e999' is not finite"));
}

TEST_CASE("bad_input: csv NaN time") {
  // Dropped with a warning; a group whose every time is NaN has no data: the leaf is
  // NO_COVERAGE (profile timing) or the flagged roofline (auto), never NaN.
  const ProfileDir dir("nan");
  dir.write("gemm.csv", std::string(gemm_header) + "bf16,4096,4096,64,cublaslt,NaN\nbf16,4096,4096,128,cublaslt,-nan\n");
  const Timing prof = dir.timing(TimingMode::profile);
  const Metrics m = gemm_at(prof, 64);
  CHECK(m.time_s == 0);
  CHECK(has(m.coverage, Coverage::no_coverage));
  REQUIRE(prof.profiles()->warnings().size() == 3);
  CHECK(has(prof.profiles()->warnings()[0], ":2:28: dropped row: column 'time_ms': 'NaN' is not finite"));
  const Metrics a = gemm_at(dir.timing(TimingMode::automatic), 64);
  CHECK(finite(a));
  CHECK(a.time_s > 0);
  CHECK(has(a.coverage, Coverage::analytic));
}

TEST_CASE("bad_input: csv inf time") {
  // The infinite row is dropped; the leaf interpolates over the others, unflagged.
  const ProfileDir dir("inf");
  dir.write("gemm.csv", std::string(gemm_header) +
                            "bf16,4096,4096,100,cublaslt,0.1\nbf16,4096,4096,200,cublaslt,Infinity\n"
                            "bf16,4096,4096,300,cublaslt,0.3\n");
  const Timing t = dir.timing(TimingMode::profile);
  const Metrics m = gemm_at(t, 200);
  CHECK(m.time_s == doctest::Approx(0.2e-3));
  CHECK(m.coverage == Coverage::none);
  CHECK(has(t.profiles()->warnings().at(0), "'Infinity' is not finite"));
}

TEST_CASE("bad_input: csv negative time") {
  const ProfileDir dir("negative");
  dir.write("gemm.csv", std::string(gemm_header) +
                            "bf16,4096,4096,100,cublaslt,0.1\nbf16,4096,4096,150,cublaslt,-0.15\n"
                            "bf16,4096,4096,200,cublaslt,0.2\n");
  const Timing t = dir.timing(TimingMode::profile);
  CHECK(gemm_at(t, 150).time_s == doctest::Approx(0.15e-3));  // from its neighbours, not -0.15
  CHECK(has(t.profiles()->warnings().at(0), ":3:29: dropped row: column 'time_ms': '-0.15' is negative"));
}

TEST_CASE("bad_input: csv zero time") {
  const ProfileDir dir("zero");
  dir.write("gemm.csv", std::string(gemm_header) +
                            "bf16,4096,4096,100,cublaslt,0.1\nbf16,4096,4096,200,cublaslt,0.000\n"
                            "bf16,4096,4096,300,cublaslt,0.3\n");
  const Timing t = dir.timing(TimingMode::profile);
  const Metrics m = gemm_at(t, 200);
  CHECK(m.time_s == doctest::Approx(0.2e-3));  // never the measured "0"
  CHECK(has(t.profiles()->warnings().at(0), "'0.000' is 0; a measured time must be finite and > 0"));
}

TEST_CASE("bad_input: csv duplicate key") {
  // The same (config, backend, inputs) twice, spelled differently: 1e0 == 1, spaces trimmed.
  check_error<DataError>(
      [] { load_csv("backend,time_ms,m,k,n,dtype\ncublaslt,1,1,8,8,bf16\n cublaslt , 2 , 1e0 , 8 , 0008 , bf16 \n"); },
      {"t/gemm.csv:3:1:", "duplicate row: (dtype=bf16, n=8, k=8, input_dtype=bf16, m=1, backend=cublaslt) was already measured on "
       "line 2"});
}

TEST_CASE("bad_input: csv unsorted axis") {
  // Rows in any order: the fit sorts the axis; in-grid queries are exact and unflagged.
  const ProfileDir dir("unsorted");
  dir.write("gemm.csv", std::string(gemm_header) +
                            "bf16,4096,4096,300,cublaslt,0.3\nbf16,4096,4096,100,cublaslt,0.1\n"
                            "bf16,4096,4096,200,cublaslt,0.2\n");
  const Timing t = dir.timing(TimingMode::profile);
  const Metrics m = gemm_at(t, 150);
  CHECK(m.time_s == doctest::Approx(0.15e-3));
  CHECK(m.coverage == Coverage::none);
  CHECK(t.profiles()->warnings().empty());
}

TEST_CASE("bad_input: csv single-point axis") {
  // One measured m: exact there; anywhere else the constant, flagged EXTRAPOLATED, but never
  // under the hardware bound (a 4096³ GEMM in 0.05 ms would be 2.7 PFLOP/s).
  const ProfileDir dir("single");
  dir.write("gemm.csv", std::string(gemm_header) + "bf16,4096,4096,64,cublaslt,0.05\n");
  const Timing t = dir.timing(TimingMode::profile);
  const Metrics on = gemm_at(t, 64), off = gemm_at(t, 4096), near = gemm_at(t, 128);
  CHECK(on.time_s == doctest::Approx(0.05e-3));
  CHECK(on.coverage == Coverage::none);
  CHECK(near.time_s == doctest::Approx(0.05e-3));  // above its bound: the constant
  CHECK(has(near.coverage, Coverage::extrapolated));
  const Kernel<kernels::Gemm> gemm(t, {Dtype::bf16, 4096, 4096}, std::vector<std::string>{"cublaslt"});
  CHECK(off.time_s == doctest::Approx(gemm.lower_bound_s({4096})));
  CHECK(off.time_s > 0.05e-3);
  CHECK(has(off.coverage, Coverage::extrapolated));
  CHECK(finite(off));
}

TEST_CASE("bad_input: csv unknown backend") {
  // Any non-empty backend name loads (profilers add backends); a leaf only reads the
  // backends it lists, so a table measured for others leaves it uncovered, flagged.
  const ProfileDir dir("backend");
  dir.write("gemm.csv", std::string(gemm_header) + "bf16,4096,4096,64,my_triton,0.05\n");
  CHECK(load_csv(std::string(gemm_header) + "bf16,1,1,1,my_triton,1\n").groups()[0].key.backend == "my_triton");
  const Metrics p = gemm_at(dir.timing(TimingMode::profile), 64);
  CHECK(p.time_s == 0);
  CHECK(has(p.coverage, Coverage::no_coverage));
  const Metrics a = gemm_at(dir.timing(TimingMode::automatic), 64);
  CHECK(a.time_s > 0);
  CHECK(has(a.coverage, Coverage::analytic));
  // The other way round: a leaf asking for a backend nobody measured.
  const Metrics q = gemm_at(dir.timing(TimingMode::profile), 64, {"nosuch"});
  CHECK(has(q.coverage, Coverage::no_coverage));
  CHECK(gemm_at(dir.timing(TimingMode::profile), 64, {"nosuch", "my_triton"}).time_s == doctest::Approx(0.05e-3));
}

TEST_CASE("bad_input: csv misnamed table file or gpu folder") {
  // Only <root>/<canonical gpu>/<kind>.csv is read: a typo in the kind or an alias as
  // the folder name leaves every leaf uncovered (flagged), it never guesses.
  const ProfileDir dir("misnamed");
  const std::string row = std::string(gemm_header) + "bf16,4096,4096,64,cublaslt,0.05\n";
  dir.write("gemmm.csv", row);
  dir.write("gemm.csv", row, "h200");
  dir.write("GEMM.csv", row);
  const Metrics p = gemm_at(dir.timing(TimingMode::profile), 64);
  CHECK(p.time_s == 0);
  CHECK(has(p.coverage, Coverage::no_coverage));
  CHECK(has(gemm_at(dir.timing(TimingMode::automatic), 64).coverage, Coverage::analytic));
}

TEST_CASE("bad_input: csv path is a directory or missing") {
  const ProfileDir dir("directory");
  fs::create_directories(dir.root / "h200_sxm" / "gemm.csv");
  check_error<DataError>([&] { gemm_at(dir.timing(TimingMode::automatic), 64); },
                         {(dir.root / "h200_sxm" / "gemm.csv").string(), "is a directory, not a profile table"});
  check_error<DataError>([&] { load_profile_csv(dir.root / "none.csv", gemm_schema()); },
                         {"none.csv: cannot open the profile table"});
}

TEST_CASE("bad_input: csv file with only a BOM and blank CRLF lines") {
  check_error<DataError>([] { load_csv("\xEF\xBB\xBF\r\n  \r\n# note\r\n"); },
                         {"t/gemm.csv:1:1: empty file: no header line (only blank lines and comments)"});
}

// =============================================================================
// config.json (HfConfig and the three runtime forms)
// =============================================================================

TEST_CASE("bad_input: config not JSON") {
  // Truncated: the file name and nlohmann's line/column both appear.
  check_error<DataError>([] { parse_hf_config("{\"hidden_size\": 4096,", "cfg.json"); },
                         {"cfg.json: not valid JSON", "line 1, column 22"});
  check_error<DataError>([] { parse_hf_config("", "empty.json"); }, {"empty.json: not valid JSON"});
  // Through load(): the path names the file.
  const fs::path p = fs::temp_directory_path() / "costdsl_bad_input_cfg.json";
  {
    std::ofstream out(p);
    out << "hidden_size = 4096\n";
  }
  check_error<DataError>([&] { load_hf_config(p); }, {p.string() + ": not valid JSON"});
  fs::remove(p);
  check_error<DataError>([] { load_hf_config("/nonexistent/config.json"); },
                         {"/nonexistent/config.json: cannot open the model config"});
}

TEST_CASE("bad_input: config number too large for a double (found by fuzz_hf_config)") {
  // nlohmann reports it as out_of_range, not parse_error: it must still be a DataError.
  check_error<DataError>([] { parse_hf_config("{\"hidden_size\": 1E400}", "cfg.json"); },
                         {"cfg.json: not valid JSON", "number overflow"});
  check_error<DataError>([] { parse_hf_config("7777777777E77777000000000", "cfg.json"); }, {"cfg.json"});
}

TEST_CASE("bad_input: config not an object") {
  check_error<DataError>([] { parse_hf_config("[4096, 32]", "cfg.json"); },
                         {"cfg.json: a config.json must hold a JSON object, got array"});
  check_error<DataError>([] { parse_hf_config("\"llama\"", "cfg.json"); }, {"got string"});
  check_error<DataError>([] { parse_hf_config("null", "cfg.json"); }, {"got null"});
}

TEST_CASE("bad_input: config missing keys, each family") {
  check_error<DataError>([] { build_llama(without(llama_json(), "hidden_size")); },
                         {"cfg.json: missing key 'hidden_size'"});
  check_error<DataError>([] { build_llama(without(llama_json(), "vocab_size")); }, {"missing key 'vocab_size'"});
  // Qwen3-MoE states head_dim explicitly (it is not hidden / heads there).
  check_error<DataError>([] { build_qwen(without(qwen_json(), "head_dim")); }, {"cfg.json: missing key 'head_dim'"});
  check_error<DataError>([] { build_qwen(without(qwen_json(), "num_experts")); }, {"missing key 'num_experts'"});
  check_error<DataError>([] { build_deepseek(without(deepseek_json(), "kv_lora_rank")); },
                         {"cfg.json: missing key 'kv_lora_rank'"});
  // A null value is missing too.
  check_error<DataError>([] { build_deepseek(with(deepseek_json(), "n_routed_experts", nullptr)); },
                         {"missing key 'n_routed_experts'"});
  // Optional keys fall back: num_key_value_heads to the head count (MHA).
  CHECK_NOTHROW(build_llama(without(llama_json(), "num_key_value_heads")));
}

TEST_CASE("bad_input: config wrong types where an integer is needed") {
  check_error<DataError>([] { build_llama(with(llama_json(), "hidden_size", "4096")); },
                         {"cfg.json: 'hidden_size' must be an integer, got \"4096\""});
  check_error<DataError>([] { build_llama(with(llama_json(), "num_attention_heads", 32.0)); },
                         {"'num_attention_heads' must be an integer, got 32.0"});
  check_error<DataError>([] { build_qwen(with(qwen_json(), "num_experts", true)); },
                         {"'num_experts' must be an integer, got true"});
  check_error<DataError>([] { build_qwen(with(qwen_json(), "num_experts_per_tok", nlohmann::json::array({8}))); },
                         {"'num_experts_per_tok' must be an integer, got [8]"});
  check_error<DataError>([] { build_deepseek(with(deepseek_json(), "q_lora_rank", 1536.5)); },
                         {"'q_lora_rank' must be an integer, got 1536.5"});
  check_error<DataError>([] { build_llama(with(llama_json(), "torch_dtype", 16)); },
                         {"'torch_dtype' must be a string, got 16"});
  check_error<DataError>([] { build_llama(with(llama_json(), "torch_dtype", "int3")); },
                         {"cfg.json: torch_dtype 'int3' is not a known dtype (expected one of"});
}

TEST_CASE("bad_input: config zero and negative dims") {
  check_error<DataError>([] { build_llama(with(llama_json(), "num_hidden_layers", 0)); },
                         {"cfg.json: 'num_hidden_layers' is 0; it must be at least 1"});
  check_error<DataError>([] { build_llama(with(llama_json(), "intermediate_size", -14336)); },
                         {"'intermediate_size' is -14336; it must be at least 1"});
  check_error<DataError>([] { build_qwen(with(qwen_json(), "num_key_value_heads", -4)); },
                         {"'num_key_value_heads' is -4; it must be at least 1"});
  check_error<DataError>([] { build_deepseek(with(deepseek_json(), "first_k_dense_replace", 0)); },
                         {"'first_k_dense_replace' is 0; it must be at least 1"});
  check_error<DataError>([] { build_deepseek(with(deepseek_json(), "n_shared_experts", 0)); },
                         {"'n_shared_experts' is 0; it must be at least 1"});
}

TEST_CASE("bad_input: config integers beyond 32 and 64 bits") {
  check_error<DataError>([] { build_llama(with(llama_json(), "vocab_size", 4294967296LL)); },
                         {"'vocab_size' is 4294967296; it must fit in 32 bits"});
  // Above 2^63-1 nlohmann keeps it unsigned: the message names the value, not a wrapped -1.
  const std::string text = "{\"hidden_size\": 18446744073709551615, \"num_attention_heads\": 32}";
  const std::string e = error_of<DataError>([&] { (void)parse_hf_config(text, "cfg.json").dim("hidden_size"); });
  CHECK(has(e, "'hidden_size' is 18446744073709551615; it must fit in 32 bits"));
  // Above 2^64 it is a float in JSON: not an integer.
  check_error<DataError>(
      [] { (void)parse_hf_config("{\"hidden_size\": 184467440737095516150}", "cfg.json").dim("hidden_size"); },
      {"'hidden_size' must be an integer, got 1.844674407370955e+20"});
}

TEST_CASE("bad_input: config heads not divisible by tp") {
  check_error<ConfigError>([] { build_llama(llama_json(), 3); }, {"tp 3 does not divide num_qo_heads 32"});
  check_error<ConfigError>([] { build_qwen(qwen_json(), 3, 3); }, {"tp 3 does not divide num_qo_heads 32"});
  check_error<ConfigError>([] { build_deepseek(deepseek_json(), 3, 3); }, {"tp 3 does not divide num_heads 128"});
  // GQA: the KV heads must divide the query heads, whatever tp.
  check_error<ConfigError>([] { build_llama(with(llama_json(), "num_key_value_heads", 5)); },
                           {"num_kv_heads 5 must divide num_qo_heads 32"});
}

TEST_CASE("bad_input: config tp above num_key_value_heads") {
  const std::string rule = "tp may not exceed num_kv_heads (KV heads are not replicated)";
  check_error<ConfigError>([] { build_llama(llama_json(), 16); }, {rule, "tp 16 exceeds num_kv_heads 8"});
  // MoE archs copy KV heads above tp = num_kv_heads, as the frameworks do, where they divide tp.
  check_error<ConfigError>([] { build_qwen(qwen_json(), 6, 6); }, {"num_kv_heads 4 does not divide tp 6"});
  // MLA has no KV heads (one latent shared by all heads): its bound is the head count.
  check_error<ConfigError>([] { build_deepseek(deepseek_json(), 256, 256); }, {"tp 256", "num_heads 128"});
}

TEST_CASE("bad_input: config experts not divisible by ep") {
  check_error<ConfigError>([] { build_qwen(qwen_json(), 1, 48); }, {"ep 48 does not divide num_experts 128"});
  check_error<ConfigError>([] { build_qwen(with(qwen_json(), "num_experts", 100), 1, 8); },
                           {"ep 8 does not divide num_experts 100"});
  check_error<ConfigError>([] { build_deepseek(deepseek_json(), 1, 24); }, {"ep 24 does not divide num_experts 256"});
  // ep must also be a multiple of tp (dp = ep / tp groups).
  check_error<ConfigError>([] { build_qwen(qwen_json(), 4, 2); }, {"tp 4 does not divide ep 2"});
}

TEST_CASE("bad_input: config TP experts whose width tp does not divide") {
  // Checked by the arch before its worklets (static: a compile error, compile_fail/tp_experts_tp3.cpp).
  check_error<ConfigError>([] { build_qwen_tp_experts(with(qwen_json(), "moe_intermediate_size", 770), 4); },
                           {"tp 4 does not divide moe_intermediate 770"});
  check_error<ConfigError>([] { build_deepseek_tp_experts(with(deepseek_json(), "moe_intermediate_size", 2050), 4); },
                           {"tp 4 does not divide moe_intermediate 2050"});
  // TP experts are one attention group: ep stays 1.
  check_error<ConfigError>([] { build_qwen_tp_experts(qwen_json(), 4, 8); },
                           {"TP-sharded experts run ep 1 (one attention group): ep 8 exceeds max_ep 1"});
}

TEST_CASE("bad_input: config dims whose products overflow 32 bits") {
  // Llama: 2 * intermediate (the fused up/gate projection) overflows.
  check_error<ConfigError>([] { build_llama(with(llama_json(), "intermediate_size", 2147483648LL)); },
                           {"2*intermediate/tp = 2 * 2147483648 overflows 32 bits"});
  // Llama: hidden 2^31 with 64 heads and an explicit head_dim of 2^26: the qkv width.
  check_error<ConfigError>(
      [] {
        build_llama(with(with(with(llama_json(), "hidden_size", 2147483648LL), "num_attention_heads", 64), "head_dim",
                         67108864));
      },
      {"(num_qo_heads/tp+2*num_kv_heads/tp)*head_dim", "overflows 32 bits"});
  // Qwen3-MoE: head_dim 2^31 over 40 qkv heads.
  check_error<ConfigError>([] { build_qwen(with(qwen_json(), "head_dim", 2147483648LL)); },
                           {"(num_qo_heads/tp+2*num_kv_heads/tp)*head_dim = 40 * 2147483648 overflows 32 bits"});
  // DeepSeek-V3: the shared expert's width n_shared_experts * moe_intermediate_size,
  // which 32-bit arithmetic used to wrap (3 * 2^31 -> 2^31) into a wrong model.
  check_error<DataError>(
      [] { build_deepseek(with(with(deepseek_json(), "n_shared_experts", 3), "moe_intermediate_size", 2147483648LL)); },
      {"cfg.json: n_shared_experts 3 * moe_intermediate_size 2147483648 = 6442450944", "overflows 32 bits"});
}

TEST_CASE("bad_input: config absurd but in-range dims hit the kernels' bounds") {
  // hidden 2^31 fits in 32 bits and every product fits, so the kernels' own limits speak.
  check_error<ConfigError>(
      [] { build_llama(with(with(llama_json(), "hidden_size", 2147483648LL), "num_attention_heads", 64)); },
      {"hidden 2147483648 must be in 1..1048576"});
}

TEST_CASE("bad_input: config family rules") {
  check_error<DataError>([] { build_qwen(with(qwen_json(), "decoder_sparse_step", 2)); },
                         {"cfg.json: decoder_sparse_step 2 is not 1"});
  check_error<ConfigError>([] { build_qwen(with(qwen_json(), "num_experts_per_tok", 200)); },
                           {"top_k may not exceed num_experts: top_k 200 exceeds num_experts 128"});
  check_error<ConfigError>([] { build_deepseek(with(deepseek_json(), "first_k_dense_replace", 70)); },
                           {"num_layers 61 - num_dense_layers 70 is negative"});
  check_error<ConfigError>([] { build_deepseek(with(deepseek_json(), "first_k_dense_replace", 61)); },
                           {"num_layers-num_dense_layers is 0; it must be at least 1"});
  check_error<DataError>([] { build_llama(without(with(llama_json(), "num_attention_heads", 30), "head_dim")); },
                         {"cfg.json: num_attention_heads 30 does not divide hidden_size 4096 and there is no head_dim"});
}

TEST_CASE("bad_input: tp 0 and ep 0") {
  check_error<ConfigError>([] { build_llama(llama_json(), 0); }, {"tp", "is 0"});
  check_error<ConfigError>([] { build_qwen(qwen_json(), 0, 8); }, {"tp is 0; it must be at least 1"});
  check_error<ConfigError>([] { build_deepseek(deepseek_json(), 1, 0); }, {"ep is 0; it must be at least 1"});
}

// =============================================================================
// Unknown names: GPU, arch, timing mode, dtype, backend list
// =============================================================================

TEST_CASE("bad_input: unknown gpu") {
  check_error<InputError>([] { load_timing("h300"); },
                          {"unknown gpu 'h300' (known: a100_sxm, b200_sxm, b300_sxm, gb200, gb300, h100_sxm, h200_sxm, l40s, rtx_pro_6000_server"});
  check_error<InputError>([] { load_timing(""); }, {"unknown gpu ''"});
  // Aliases are case- and separator-insensitive, so these are the same GPU.
  CHECK(load_timing("H200-SXM", TimingMode::roofline).gpu().name == "h200_sxm");
}

TEST_CASE("bad_input: unknown timing mode") {
  check_error<InputError>([] { parse_timing_mode("fast"); }, {"timing 'fast' is not one of auto, profile, roofline"});
  check_error<InputError>([] { parse_timing_mode("Auto"); }, {"timing 'Auto'"});
}

TEST_CASE("bad_input: unknown dtype and a dtype the gpu lacks") {
  check_error<InputError>([] { parse_dtype("int3"); },
                          {"dtype 'int3' is not a known dtype (expected one of fp32, bf16, fp16, fp8, fp4, mxfp4, fp8_block, int4)"});
  const Timing a100 = load_timing("a100", TimingMode::roofline);
  check_error<InputError>(
      [&] {
        const Kernel<kernels::Gemm> k(a100, {Dtype::fp8, 4096, 4096});
        (void)k.eval({64});
      },
      {"gpu 'a100_sxm' (sm_80) has no fp8 tensor-core path"});
}

TEST_CASE("bad_input: empty backend list and zero kernel dims") {
  check_error<ConfigError>([] { (void)Kernel<kernels::Gemm>(roofline_h200(), {Dtype::bf16, 64, 64}, {}); },
                           {"gemm: the backend list is empty"});
  check_error<ConfigError>([] { (void)Kernel<kernels::Gemm>(roofline_h200(), {Dtype::bf16, 0, 64}); },
                           {"gemm: n 0 and k 64 must both be at least 1"});
}

TEST_CASE("bad_input: gpus.json integer beyond int and wrong shape") {
  std::ifstream in(default_data_dir() / "gpus.json");
  REQUIRE(in);
  nlohmann::json j = nlohmann::json::parse(in);
  j["gpus"]["h200_sxm"]["sm_count"] = 3000000000LL;  // would truncate to -1294967296
  check_error<DataError>([&] { GpuCatalog::parse(j.dump(), "gpus.json"); },
                         {"gpus.json: gpu 'h200_sxm': field 'sm_count' must be a positive integer of at most 2147483647, "
                          "got 3000000000"});
  j["gpus"]["h200_sxm"]["sm_count"] = -132;
  check_error<DataError>([&] { GpuCatalog::parse(j.dump(), "gpus.json"); },
                         {"field 'sm_count' must be a positive integer, got -132"});
  check_error<DataError>([] { GpuCatalog::parse("[]", "gpus.json"); },
                         {"gpus.json: top level must be an object with a 'gpus' object"});
}

TEST_CASE("bad_input: roofline parameters, a file and a partial set") {
  std::ifstream in(default_data_dir() / "roofline.json");
  const std::string good((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto with = [&](std::string_view from, std::string_view to) {
    std::string t = good;
    t.replace(t.find(from), from.size(), to);
    return t;
  };
  // A file: NaN / Infinity are no JSON numbers; the parser's message names the field it was reading.
  check_error<DataError>([&] { parse_roofline_params(with("\"overlap_p\": 2.", "\"overlap_p\": NaN, \"x\": 2."), "r.json"); },
                         {"r.json: not valid JSON at field 'gemm.overlap_p' (NaN is not a JSON number: a value must be "
                          "finite)"});
  check_error<DataError>([&] { parse_roofline_params(with("\"alpha_s\": 4.", "\"alpha_s\": -Infinity, \"y\": 4."), "r.json"); },
                         {"at field 'collective.alpha_s' (-Infinity is not a JSON number"});
  check_error<DataError>([&] { parse_roofline_params(with("\"eff_mem\": 0.", "\"eff_mem\": 1.5, \"z\": 0."), "r.json"); },
                         {"r.json: field 'attention.eff_mem' must be an efficiency in (0, 1], got 1.5"});
  check_error<DataError>([&] { parse_roofline_params(with("\"floor_s\": 3.5", "\"floor_s\": -3.5"), "r.json"); },
                         {"field 'gemm.memory.floor_s' must be a finite number >= 0, got -3.5"});
  check_error<DataError>([&] { parse_roofline_params("{\"gemm\": 3}", "r.json"); }, {"field 'gemm' must be an object"});
  check_error<DataError>([&] { parse_roofline_params("{", "r.json"); }, {"r.json: not valid JSON"});
  // A partial set: only known names, each keeping its rule.
  const RooflineParams base;
  auto patch = [&](std::string_view text) { (void)apply_roofline_params_patch(base, text, "request 7: params"); };
  check_error<DataError>([&] { patch(R"({"gemm": {"overlap_q": 2}})"); },
                         {"request 7: params: field 'gemm.overlap_q' is not a roofline parameter (fields under 'gemm': "
                          "eff_compute, eff_tile_m64, k_overhead, overlap_p, memory)"});
  check_error<DataError>([&] { patch(R"({"elementwise": {"rms_norm": {"eff_max": 0.5}}})"); },
                         {"field 'elementwise.rms_norm' is not a roofline parameter (fields under 'elementwise': "
                          "generic, norm, activation, rope, residual_add, embedding, kv_append, quantize)"});
  check_error<DataError>([&] { patch(R"({"schema_version": 2})"); },
                         {"field 'schema_version' is not a roofline parameter (top-level fields: gemm, elementwise, "
                          "attention, collective, custom_all_reduce, p2p, energy)"});
  check_error<DataError>([&] { patch(R"({"attention": {"floor_s": NaN}})"); },
                         {"not valid JSON at field 'attention.floor_s' (NaN is not a JSON number"});
  check_error<DataError>([&] { patch(R"({"gemm": {"overlap_p": 0.5}})"); },
                         {"field 'gemm.overlap_p' must be a finite number >= 1, got 0.5"});
  check_error<DataError>([&] { patch(R"({"gemm": {"eff_compute": {"fp8": 0}}})"); },
                         {"field 'gemm.eff_compute.fp8' must be an efficiency in (0, 1], got 0"});
  check_error<DataError>([&] { patch(R"({"energy": {"idle_power_fraction": true}})"); },
                         {"field 'energy.idle_power_fraction' must be a number, got boolean"});
  check_error<DataError>([&] { patch(R"({"gemm": {"memory": [1]}})"); },
                         {"field 'gemm.memory' must be an object (its fields: eff_max, sat_bytes, floor_s), got array"});
  check_error<DataError>([&] { patch(R"({"p2p": {"intra_node": {"sat_bytes": 1e999}}})"); },
                         {"not valid JSON at field 'p2p.intra_node.sat_bytes'"});
  check_error<DataError>([&] { patch("[1]"); }, {"the parameters must be a JSON object shaped like roofline.json, got "
                                                  "array"});
}

// =============================================================================
// Per-iteration inputs out of range
// =============================================================================

TEST_CASE("bad_input: zero-token iteration") {
  // Nothing to do: every leaf pushes an all-zero metric with no flags (design §4),
  // in every family, never NO_COVERAGE and never NaN.
  CHECK(eval_llama({}) == Metrics{});
  const Qwen3Moe<Qwen3MoeConfig> qwen(deploy(qwen3_30b_a3b, {.tp = 1, .ep = 4}));
  const std::vector<ops::AttentionBatch> groups(4);
  CHECK(evaluate(qwen.build(roofline_h200()), qwen.inputs({groups, {}})) == Metrics{});
  const DeepseekV3<DeepseekV3Config> ds(deploy(deepseek_v3, {.tp = 1, .ep = 8}));
  const std::vector<ops::AttentionBatch> ds_groups(8);
  CHECK(evaluate(ds.build(roofline_h200()), ds.inputs({ds_groups, {}})) == Metrics{});
}

TEST_CASE("bad_input: 10^9 tokens") {
  // A dense model: a finite (huge) time, flagged as the roofline's.
  Batch b;
  b.prefill = {{0, 1000000000u}};
  const Metrics m = eval_llama(b);
  CHECK(finite(m));
  CHECK(m.time_s > 1.0);
  CHECK(has(m.coverage, Coverage::analytic));
  // Four chunks of 2^32-1 tokens each: the token count is 64-bit, still finite.
  b.prefill.assign(4, {0, 4294967295u});
  CHECK(finite(eval_llama(b)));
  // Measured tables end at some m: beyond it the edge segment extends, flagged.
  const ProfileDir dir("billion");
  dir.write("gemm.csv", std::string(gemm_header) +
                            "bf16,4096,4096,100,cublaslt,0.1\nbf16,4096,4096,200,cublaslt,0.2\n"
                            "bf16,4096,4096,300,cublaslt,0.3\n");
  const Metrics x = gemm_at(dir.timing(TimingMode::profile), 1000000000);
  CHECK(finite(x));
  CHECK(x.time_s == doctest::Approx(1000.0));  // 0.001 ms per row, linearly
  CHECK(has(x.coverage, Coverage::extrapolated));
  // MoE routing counts token-expert pairs in 32 bits: 10^9 tokens × top-8 is refused.
  const Qwen3Moe<Qwen3MoeConfig> qwen(deploy(qwen3_30b_a3b, {.tp = 1, .ep = 1}));
  b.prefill = {{0, 1000000000u}};
  const std::vector<ops::AttentionBatch> one{{b.prefill, {}}};
  check_error<InputError>([&] { evaluate(qwen.build(roofline_h200()), qwen.inputs({one, {}})); },
                          {"moe routing: tokens 1000000000 * top_k 8 overflows 32 bits"});
}

TEST_CASE("bad_input: decode with KV length 0") {
  // A decode attends to at least its own token; KV 0 would count the request (GEMM
  // rows, a logits row) but cost no attention: a silently low total.
  Batch b;
  b.decode = {2048, 0, 2048};
  check_error<InputError>([&] { eval_llama(b); },
                          {"decode request 1: KV length is 0; a decode attends to at least its own token"});
  check_error<InputError>([&] { ops::collapse_mla({{}, b.decode}); }, {"decode request 1: KV length is 0"});
  const DeepseekV3<DeepseekV3Config> ds(deploy(deepseek_v3, {.tp = 1, .ep = 1}));
  const std::vector<ops::AttentionBatch> groups{{{}, b.decode}};
  check_error<InputError>([&] { (void)ds.inputs({groups, {}}); }, {"decode request 1: KV length is 0"});
}

TEST_CASE("bad_input: prefill with append 0") {
  Batch b;
  b.prefill = {{0, 512}, {1024, 0}};
  check_error<InputError>([&] { eval_llama(b); },
                          {"prefill chunk 1 (prefix_len 1024): append_len is 0; a chunk must append at least 1 token"});
  const Qwen3Moe<Qwen3MoeConfig> qwen(deploy(qwen3_30b_a3b, {.tp = 1, .ep = 1}));
  const std::vector<ops::AttentionBatch> groups{{b.prefill, {}}};
  check_error<InputError>([&] { (void)qwen.inputs({groups, {}}); }, {"prefill chunk 1", "append_len is 0"});
}

TEST_CASE("bad_input: MoE batch list that does not match dp, and a NaN routing skew") {
  const Qwen3Moe<Qwen3MoeConfig> qwen(deploy(qwen3_30b_a3b, {.tp = 2, .ep = 8}));  // dp 4
  const std::vector<ops::AttentionBatch> three(3);
  check_error<InputError>([&] { (void)qwen.inputs({three, {}}); },
                          {"Qwen3Moe: the iteration has 3 DP group batches, dp is 4"});
  const std::vector<std::uint32_t> decode(16, 512);
  const std::vector<ops::AttentionBatch> four{{{}, decode}, {{}, decode}, {{}, decode}, {{}, decode}};
  for (const double skew : {std::nan(""), std::numeric_limits<double>::infinity(), -1.0})
    check_error<InputError>([&] { evaluate(qwen.build(roofline_h200()), qwen.inputs({four, {skew}})); },
                            {"moe routing: exponent", "must be finite and >= 0"});
}
