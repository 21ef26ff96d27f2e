#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "costdsl/costdsl.hpp"
#include "costdsl/gpu_spec.hpp"

using namespace costdsl;

namespace {

std::string error_of(auto&& fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

// A minimal valid entry; tests break one field at a time.
std::string gpu_json(const std::string& body_override = "", const std::string& drop = "") {
  std::string fields[][2] = {
      {"aliases", R"(["X1", "NVIDIA X1"])"},
      {"sm_version", "90"},
      {"sm_count", "132"},
      {"peak_flops", R"({"bf16": 1e15, "fp16": 1e15, "fp8": null, "fp4": null, "fp32": 6e13})"},
      {"hbm_bandwidth", "3e12"},
      {"hbm_capacity", "8e10"},
      {"intra_node_bandwidth", "4.5e11"},
      {"inter_node_bandwidth", "5e10"},
      {"gpus_per_node", "8"},
      {"p2p_latency_s", "1e-5"},
      {"board_power_w", "700"},
      {"notes", R"("test")"},
  };
  std::string out = R"({"gpus": {"x1": {)";
  bool first = true;
  for (auto& [k, v] : fields) {
    if (k == drop) continue;
    out += (first ? "" : ", ") + std::string("\"") + k + "\": " + v;
    first = false;
  }
  out += body_override + "}}}";
  return out;
}

}  // namespace

TEST_CASE("default_data_dir honours the build definition") {
  CHECK(std::filesystem::exists(default_data_dir() / "gpus.json"));
}

TEST_CASE("catalog loads the four shipped GPUs with the reference figures") {
  const auto cat = GpuCatalog::load_default();
  CHECK(cat.gpus().size() >= 4);
  const auto& h200 = cat.find("h200_sxm");
  CHECK(h200.peak_flops(Dtype::bf16) == doctest::Approx(989e12));
  CHECK(h200.peak_flops(Dtype::fp8) == doctest::Approx(1978e12));
  CHECK(h200.hbm_bandwidth == doctest::Approx(4.8e12));
  CHECK(h200.hbm_capacity == doctest::Approx(151397597184.0));
  CHECK(h200.intra_node_bandwidth == doctest::Approx(450e9));
  CHECK(h200.inter_node_bandwidth == doctest::Approx(50e9));
  CHECK(h200.sm_count == 132);
  CHECK(h200.sm_version == 90);
  CHECK(h200.board_power_w == doctest::Approx(700));
  CHECK(cat.find("h100_sxm").peak_flops(Dtype::fp32) == doctest::Approx(67e12));
  const auto& b200 = cat.find("b200_sxm");
  CHECK(b200.peak_flops(Dtype::fp4) == doctest::Approx(9000e12));
  CHECK(b200.sm_count == 148);
  CHECK(cat.find("a100_sxm").sm_count == 108);
}

TEST_CASE("aliases resolve case-insensitively with any separator") {
  const auto cat = GpuCatalog::load_default();
  for (const char* n : {"H200", "h200", "NVIDIA H200", "NVIDIA H200 SXM", "H200-SXM", "h200_sxm", "H200_SXM",
                        "nvidia h200 sxm"})
    CHECK_MESSAGE(cat.find(n).name == "h200_sxm", n);
  CHECK(cat.find("H100").name == "h100_sxm");
  CHECK(cat.find("NVIDIA B200").name == "b200_sxm");
  CHECK(cat.find("a100-sxm4-80gb").name == "a100_sxm");
  CHECK(cat.contains("h100 sxm"));
  CHECK_FALSE(cat.contains("mi300x"));
}

TEST_CASE("unknown gpu names the known ones") {
  const auto cat = GpuCatalog::load_default();
  CHECK_THROWS_AS(cat.find("MI300X"), InputError);
  const auto msg = error_of([&] { (void)cat.find("MI300X"); });
  CHECK(msg.find("unknown gpu 'MI300X'") != std::string::npos);
  for (const char* k : {"h100_sxm", "h200_sxm", "b200_sxm", "a100_sxm"}) CHECK(msg.find(k) != std::string::npos);
}

TEST_CASE("a dtype without a tensor path is an error, not a guess") {
  const auto cat = GpuCatalog::load_default();
  const auto& a100 = cat.find("A100");
  CHECK_FALSE(a100.supports(Dtype::fp8));
  CHECK_THROWS_AS((void)a100.peak_flops(Dtype::fp8), InputError);
  CHECK(error_of([&] { (void)a100.peak_flops(Dtype::fp8); }).find("a100_sxm") != std::string::npos);
  CHECK(error_of([&] { (void)a100.peak_flops(Dtype::fp8); }).find("fp8") != std::string::npos);
  CHECK_THROWS_AS((void)cat.find("H100").peak_flops(Dtype::fp4), InputError);
}

TEST_CASE("strict loading: the fixture itself is valid") {
  const auto cat = GpuCatalog::parse(gpu_json(), "fixture");
  CHECK(cat.find("nvidia x1").name == "x1");
}

TEST_CASE("strict loading: missing or wrongly typed fields name gpu and field") {
  const auto dir = std::filesystem::temp_directory_path() / "costdsl_test_gpu_spec";
  std::filesystem::create_directories(dir);
  const auto write = [&](const std::string& name, const std::string& text) {
    const auto path = dir / name;
    std::ofstream(path) << text;
    return path;
  };
  SUBCASE("missing field") {
    const auto msg = error_of([&] { GpuCatalog::load(write("missing.json", gpu_json("", "hbm_bandwidth"))); });
    CHECK(msg.find("'x1'") != std::string::npos);
    CHECK(msg.find("hbm_bandwidth") != std::string::npos);
    CHECK(msg.find("missing") != std::string::npos);
    CHECK(msg.find("missing.json") != std::string::npos);
  }
  SUBCASE("wrong type") {
    auto text = gpu_json("", "sm_count") ;
    text.insert(text.find("\"aliases\""), R"("sm_count": "132", )");
    const auto msg = error_of([&] { GpuCatalog::load(write("type.json", text)); });
    CHECK(msg.find("'x1'") != std::string::npos);
    CHECK(msg.find("sm_count") != std::string::npos);
  }
  SUBCASE("missing dtype key must be null, not absent") {
    auto text = gpu_json();
    text.replace(text.find(R"("fp4": null, )"), std::string(R"("fp4": null, )").size(), "");
    const auto msg = error_of([&] { GpuCatalog::load(write("dtype.json", text)); });
    CHECK(msg.find("peak_flops.fp4") != std::string::npos);
  }
  SUBCASE("negative bandwidth") {
    auto text = gpu_json();
    text.replace(text.find("3e12"), 4, "-3e12");
    CHECK(error_of([&] { GpuCatalog::load(write("neg.json", text)); }).find("hbm_bandwidth") != std::string::npos);
  }
  SUBCASE("not JSON / no file / duplicate alias") {
    CHECK_THROWS_AS(GpuCatalog::load(write("bad.json", "{ nope")), DataError);
    CHECK_THROWS_AS(GpuCatalog::load(dir / "absent.json"), DataError);
    const std::string text = gpu_json();
    const std::string head = R"({"gpus": {"x1": )";
    const std::string body = text.substr(head.size(), text.size() - head.size() - 2);  // {...}
    const std::string two = R"({"gpus": {"x1": )" + body + R"(, "x2": )" + body + "}}";
    CHECK_THROWS_AS(GpuCatalog::parse(two), DataError);
    CHECK(error_of([&] { GpuCatalog::parse(two); }).find("already names gpu 'x1'") != std::string::npos);
  }
  std::filesystem::remove_all(dir);
}
