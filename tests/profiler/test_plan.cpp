// costdsl-profile's host side: the grid it measures, the CSV it writes, the GPU name.
#include <doctest/doctest.h>

#include <algorithm>
#include <set>

#include "costdsl/gpu_catalog.hpp"
#include "costdsl/kernel.hpp"
#include "costdsl/kernels/all.hpp"
#include "costdsl/profile_csv.hpp"
#include "plan.hpp"
#include "shapes.hpp"

using namespace costdsl;
using namespace costdsl::profiler;
namespace k = costdsl::kernels;

namespace {

std::vector<Job> jobs_of(const std::vector<Job>& all, std::string_view kind) {
  std::vector<Job> out;
  for (const auto& j : all)
    if (j.kind == kind) out.push_back(j);
  return out;
}

// The job's grid is exactly K::sweep(config) mapped through K::point, in order.
template <class K>
void check_grid(const Job& j, const typename K::Config& c) {
  CHECK(j.key == profile_key(c));
  const auto sweep = K::sweep(c);
  REQUIRE(j.points.size() == sweep.size());
  for (std::size_t i = 0; i < sweep.size(); ++i) {
    const auto p = K::point(c, sweep[i]);
    REQUIRE(j.points[i].size() == p.size());
    for (std::size_t d = 0; d < p.size(); ++d) {
      CHECK(j.points[i][d] == p[d]);
      CHECK(j.device_inputs[i * p.size() + d] == static_cast<std::int64_t>(p[d]));
    }
  }
  const auto s = profile_schema<K>();
  CHECK(j.schema.kind == s.kind);
  CHECK(j.schema.inputs == s.inputs);
  REQUIRE(j.schema.config.size() == s.config.size());
  for (std::size_t i = 0; i < s.config.size(); ++i) CHECK(j.schema.config[i].name == s.config[i].name);
  const auto d = j.device_job();
  CHECK(d.npoints == int(sweep.size()));
  CHECK(d.ninputs == int(K::axes.size()));
  CHECK(d.inputs == j.device_inputs.data());
}

}  // namespace

TEST_CASE("built-in shapes: Llama-3-8B, -70B and Qwen3-32B per rank at TP 1, 2, 4, 8") {
  const auto shapes = select_rank_shapes({}, {});
  REQUIRE(shapes.size() == 12);
  CHECK(shapes[0].model == "llama3_8b");
  CHECK(shapes[2].tp == 4);
  CHECK(shapes[2].num_qo_heads == 8);
  CHECK(shapes[2].num_kv_heads == 2);
  CHECK(shapes[2].intermediate == 14336 / 4);
  CHECK(shapes[2].hidden == 4096);
  CHECK(shapes[7].model == "llama3_70b");
  CHECK(shapes[7].num_qo_heads == 8);
  CHECK(shapes[7].num_kv_heads == 1);
  CHECK(shapes[7].vocab == 128256 / 8);  // the lm_head's shard at tp 8
  CHECK(shapes[9].model == "qwen3_32b");
  CHECK(shapes[9].tp == 2);
  CHECK(shapes[9].hidden == 5120);
  CHECK(shapes[9].intermediate == 12800);
  CHECK(shapes[9].num_qo_heads == 32);
  CHECK(shapes[9].vocab == 151936 / 2);
  CHECK_THROWS_AS(select_rank_shapes({"llama3_8b"}, {16}), std::invalid_argument);  // kv = 8 < 16
  CHECK_THROWS_AS(select_rank_shapes({"gpt5"}, {}), std::invalid_argument);
  CHECK(select_rank_shapes({"llama3_70b"}, {2}).size() == 1);

  // Qwen3-32B shares the 70B's attention configs but brings GEMM shapes of its own.
  const auto llamas = plan_jobs(select_rank_shapes({"llama3_8b", "llama3_70b"}, {}), PlanOptions{});
  const auto all = plan_jobs(shapes, PlanOptions{});
  const auto count = [](const std::vector<Job>& js, std::string_view kind) {
    return std::count_if(js.begin(), js.end(), [&](const Job& j) { return j.kind == kind; });
  };
  // 20 (n, k) per dtype (the lm_head's vocabulary shard at each TP too), less one the Llamas
  // already have: Qwen3-32B's o_proj at TP 1 is Llama-3-70B's qkv_proj at TP 2 (n 5120, k 8192).
  CHECK(count(all, "gemm") == count(llamas, "gemm") + 2 * (4 * 4 + 4 - 1));
  CHECK(count(all, "attn_decode") == count(llamas, "attn_decode"));
}

TEST_CASE("plan: every measured kind, configs deduplicated, grids equal to each kernel's sweep") {
  // The two Llamas: their shared shapes are what the counts below are about.
  const auto jobs = plan_jobs(select_rank_shapes({"llama3_8b", "llama3_70b"}, {}), PlanOptions{});
  std::set<std::string> kinds;
  for (const auto& j : jobs) kinds.insert(j.kind);
  CHECK(kinds.size() == supported_kinds().size());

  // Kinds come in supported_kinds() order.
  std::vector<std::string> order;
  for (const auto& j : jobs)
    if (order.empty() || order.back() != j.kind) order.push_back(j.kind);
  CHECK(order == supported_kinds());

  // No config twice within a kind.
  for (const auto& kind : supported_kinds()) {
    std::set<std::vector<std::string>> keys;
    for (const auto& j : jobs_of(jobs, kind)) CHECK(keys.insert(j.key).second);
  }

  // GEMM: 5 projections × 8 rank shapes × 2 dtypes: distinct (n, k) per model, qkv, o_proj,
  // up_gate, down and the lm_head's vocab/tp shard per TP.
  const auto gemm = jobs_of(jobs, "gemm");
  CHECK(gemm.size() == 2 * (2 * (4 * 4 + 4)));  // 5 projections × 4 TPs × 2 models × 2 dtypes
  check_grid<k::Gemm>(gemm.front(), {Dtype::bf16, 6144, 4096});  // Llama-3-8B tp1 qkv_proj
  CHECK(gemm.front().points.size() == gemm_m_axis().size());
  // Llama-3-8B at t = 4: qkv n = 1536, o_proj k = 1024 (design §7).
  bool qkv = false, o = false;
  for (const auto& j : gemm) {
    qkv |= j.key == std::vector<std::string>{"bf16", "1536", "4096", "bf16"};
    o |= j.key == std::vector<std::string>{"bf16", "4096", "1024", "bf16"};
  }
  CHECK(qkv);
  CHECK(o);
  CHECK(std::count_if(gemm.begin(), gemm.end(), [](const Job& j) { return j.key[0] == "fp8"; }) == 40);
  // cuBLASLt's fp8 GEMM times the GEMM on fp8 operands: its rows say the input came quantized.
  CHECK(std::all_of(gemm.begin(), gemm.end(), [](const Job& j) { return j.key[3] == (j.key[0] == "fp8" ? "fp8" : "bf16"); }));
  CHECK(gemm.back().device.dtype == costdsl_prof::dtype_fp8_e4m3);

  const auto norm = jobs_of(jobs, "rms_norm");
  REQUIRE(norm.size() == 2);
  check_grid<k::RmsNorm>(norm[0], {Dtype::bf16, 4096});
  check_grid<k::RmsNorm>(norm[1], {Dtype::bf16, 8192});
  CHECK(norm[0].points.size() == token_axis.size());
  CHECK(norm[1].device.dims[0] == 8192);

  check_grid<k::FusedAddRmsNorm>(jobs_of(jobs, "fused_add_rms_norm")[0], {Dtype::bf16, 4096});
  const auto silu = jobs_of(jobs, "silu_and_mul");
  CHECK(silu.size() == 5);  // 14336/{1,2,4,8} and 28672 (70B at tp 2, 4, 8 repeats 8B shapes)
  check_grid<k::SiluAndMul>(silu[0], {Dtype::bf16, 14336});
  const auto rope = jobs_of(jobs, "rope");
  CHECK(rope.size() == 8);
  check_grid<k::Rope>(rope[0], {Dtype::bf16, 32, 8, 128});
  CHECK(rope[0].device.dims[0] == 32);
  CHECK(rope[0].device.dims[1] == 8);
  CHECK(rope[0].device.dims[2] == 128);
  const auto emb = jobs_of(jobs, "embedding");
  REQUIRE(emb.size() == 8);  // the vocabulary's shard at each TP, two models
  check_grid<k::Embedding>(emb[4], {Dtype::bf16, 128256, 8192});
  check_grid<k::Embedding>(emb[7], {Dtype::bf16, 128256 / 8, 8192});
  check_grid<k::KvCacheAppend>(jobs_of(jobs, "kv_cache_append")[0], {Dtype::bf16, 8, 128});

  const auto prefill = jobs_of(jobs, "attn_prefill");
  REQUIRE(prefill.size() == 8);
  check_grid<k::AttnPrefill>(prefill[0], {Dtype::bf16, 32, 8, 128, 0});
  CHECK(prefill[0].points.size() == k::AttnPrefill::sweep_appends().size());
  CHECK(prefill[0].schema.inputs == std::vector<std::string>{"batch", "append"});
  const auto decode = jobs_of(jobs, "attn_decode");
  REQUIRE(decode.size() == 8);
  check_grid<k::AttnDecode>(decode[4], {Dtype::bf16, 64, 8, 128});
  CHECK(decode[4].device.kind == costdsl_prof::kind_attn_decode);
}

TEST_CASE("plan options: kinds, dtypes, stride") {
  PlanOptions o;
  o.kinds = {"rms_norm"};
  o.point_stride = 10;
  const auto jobs = plan_jobs(select_rank_shapes({"llama3_8b"}, {1}), o);
  REQUIRE(jobs.size() == 1);
  CHECK(jobs[0].points.size() == 8);  // indices 0, 10, …, 60 and the last (62)
  CHECK(jobs[0].points.back()[0] == 65536);
  CHECK(jobs[0].points.front()[0] == 32);

  o = PlanOptions{};
  o.kinds = {"gemm"};
  o.gemm_dtypes = {Dtype::fp8};
  const auto g = plan_jobs(select_rank_shapes({"llama3_8b"}, {1}), o);
  CHECK(g.size() == 5);
  for (const auto& j : g) CHECK(j.key[0] == "fp8");

  o.kinds = {"all_reduce"};
  CHECK_THROWS_WITH_AS(plan_jobs(select_rank_shapes({}, {}), o), doctest::Contains("stay analytic"),
                       std::invalid_argument);
  CHECK(kind_id("attn_decode") == costdsl_prof::kind_attn_decode);
  CHECK(kind_id("gemm") == costdsl_prof::kind_gemm);
}

TEST_CASE("estimate: positive, grows with repetitions") {
  const auto catalog = GpuCatalog::load_default();
  PlanOptions o;
  o.kinds = {"rms_norm", "gemm"};
  const auto jobs = plan_jobs(select_rank_shapes({"llama3_8b"}, {1}), o);
  costdsl_prof::TimingOptions few, many;
  few.reps = 3;
  many.reps = 50;
  many.target_ms = 1000;
  for (const auto& j : jobs) {
    const double a = estimate_seconds(j, catalog.find("h200_sxm"), few);
    CHECK(a > 0);
    CHECK(estimate_seconds(j, catalog.find("h200_sxm"), many) > a);
  }
}

TEST_CASE("csv: what the profiler writes, the loader reads back exactly") {
  const auto jobs = plan_jobs(select_rank_shapes({"llama3_8b"}, {1, 4}), PlanOptions{});
  std::map<std::string, std::vector<CsvRow>> rows;
  std::map<std::string, ProfileSchema> schemas;
  for (const auto& j : jobs) {
    schemas[j.kind] = j.schema;
    for (std::size_t i = 0; i < j.points.size(); ++i)
      rows[j.kind].push_back({j.key, j.points[i], j.kind == "gemm" ? "cublaslt" : "costdsl_cuda",
                              0.001 * double(i + 1) + 1e-7});
  }
  for (const auto& [kind, r] : rows) {
    const std::string text = format_profile_csv(schemas[kind], r, {"a comment", "driver 13000"});
    CHECK(text.rfind("# a comment\n# driver 13000\n", 0) == 0);
    std::vector<std::string> warnings;
    const ProfileTable t = load_profile_csv_text(text, kind, schemas[kind], &warnings);
    CHECK(warnings.empty());
    CHECK(t.point_count() == r.size());
    for (const auto& row : r) {
      const ProfileGroup* g = t.find(row.config, row.backend);
      REQUIRE(g != nullptr);
    }
    // Every row comes back with its inputs and time (6 significant digits).
    std::size_t n = 0;
    for (const auto& g : t.groups())
      for (const auto& p : g.points) {
        const CsvRow& want = r[n++];
        CHECK(g.key.config == want.config);
        CHECK(p.inputs == want.inputs);
        CHECK(p.time_ms == doctest::Approx(want.time_ms).epsilon(1e-5));
      }
  }
}

TEST_CASE("csv: the header and a row, byte for byte; bad rows are refused") {
  const auto s = profile_schema<k::Gemm>();
  const std::string text =
      format_profile_csv(s, {{{"bf16", "4096", "4096", "bf16"}, {1}, "cublaslt", 0.0121},
                             {{"fp8", "4096", "4096", "bf16"}, {65536}, "cublaslt", 12.5}});
  CHECK(text ==
        "dtype,n,k,input_dtype,m,backend,time_ms\nbf16,4096,4096,bf16,1,cublaslt,0.0121\n"
        "fp8,4096,4096,bf16,65536,cublaslt,12.5\n");
  CHECK_THROWS_AS(format_profile_csv(s, {{{"bf16", "1", "1", "bf16"}, {1}, "cublaslt", 0.0}}), std::invalid_argument);
  CHECK_THROWS_AS(format_profile_csv(s, {{{"bf16", "1", "1", "bf16"}, {1}, "a,b", 1.0}}), std::invalid_argument);
  CHECK_THROWS_AS(format_profile_csv(s, {{{"bf16", "1", "1"}, {1}, "x", 1.0}}), std::invalid_argument);
  CHECK_THROWS_AS(format_profile_csv(s, {}, {"two\nlines"}), std::invalid_argument);
  CHECK(format_number(131072) == "131072");
  CHECK(format_number(1e9) == "1000000000");
  CHECK(format_number(0.5) == "0.5");
  CHECK(format_number(96.5) == "96.5");
}

TEST_CASE("gpu name: CUDA device names map to gpus.json's canonical names") {
  const auto catalog = GpuCatalog::load_default();
  CHECK(canonical_gpu_name(catalog, "NVIDIA H200") == "h200_sxm");
  CHECK(canonical_gpu_name(catalog, "NVIDIA H100 80GB HBM3") == "h100_sxm");
  CHECK(canonical_gpu_name(catalog, "NVIDIA A100-SXM4-80GB") == "a100_sxm");
  CHECK(canonical_gpu_name(catalog, "H200 ") == "h200_sxm");
  CHECK(canonical_gpu_name(catalog, "NVIDIA B200") == "b200_sxm");
  CHECK(canonical_gpu_name(catalog, "h200_sxm") == "h200_sxm");
  CHECK_THROWS_WITH_AS(canonical_gpu_name(catalog, "NVIDIA GeForce RTX 4090"), doctest::Contains("--gpu"),
                       InputError);
}
