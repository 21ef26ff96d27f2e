// The aiconfigurator importer (tools/aiconfigurator.hpp) on small generated tables:
// recognition by columns, the mapping of each table to its costdsl kind, the counted
// skips, duplicate merging, the held-out split, the written tables, and what the
// kernels then read from them (measured leaves, interpolated configs, the bounded
// custom all-reduce).
#include <doctest/doctest.h>
#include <zlib.h>

#include <cmath>
#include <algorithm>
#include <filesystem>
#include <set>
#include <fstream>
#include <string>
#include <vector>

#include "aiconfigurator.hpp"
#include "costdsl/kernel.hpp"
#include "costdsl/gpu_catalog.hpp"
#include "costdsl/load_roofline_params.hpp"
#include "costdsl/load_timing.hpp"
#include "costdsl/roofline.hpp"
#include "costdsl/timing.hpp"

using namespace costdsl;
namespace fs = std::filesystem;

namespace {

struct TempDir {
  fs::path path;
  explicit TempDir(const std::string& name) : path(fs::temp_directory_path() / ("costdsl_aic_" + name)) {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
  void write(const std::string& file, const std::string& text) const {
    std::ofstream(path / file, std::ios::binary) << text;
  }
};

const std::string gemm_header = "framework,version,device,op_name,kernel_source,gemm_dtype,m,n,k,latency\n";
std::string gemm_row(const std::string& dtype, int m, int n, int k, double ms) {
  return "SGLang,0.5.14,NVIDIA H100,gemm,sglang_torch_linear," + dtype + "," + std::to_string(m) + "," +
         std::to_string(n) + "," + std::to_string(k) + "," + std::to_string(ms) + "\n";
}
const std::string attn_header =
    "framework,version,device,op_name,kernel_source,batch_size,isl,num_heads,num_key_value_heads,head_dim,"
    "beam_width,attn_dtype,kv_cache_dtype,step,window_size,latency\n";

std::vector<aic::Row> read_text(const std::string& text, aic::FileReport* rep = nullptr) {
  std::vector<aic::Row> rows;
  const aic::FileReport r = aic::read_table_text(text, "t.csv", rows);
  if (rep != nullptr) *rep = r;
  return rows;
}

std::string error_of(const std::string& text) {
  try {
    read_text(text);
  } catch (const DataError& e) {
    return e.what();
  }
  return "<no DataError>";
}

bool has(const std::string& s, std::string_view needle) { return s.find(needle) != std::string::npos; }

// `text` as a gzip file (zlib's gzip wrapper, as gzip(1) and aiconfigurator's exports write it).
std::string gzip(const std::string& text) {
  z_stream z{};
  REQUIRE(deflateInit2(&z, Z_BEST_COMPRESSION, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) == Z_OK);
  std::string out(deflateBound(&z, static_cast<uLong>(text.size())), '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  z.avail_in = static_cast<uInt>(text.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  REQUIRE(deflate(&z, Z_FINISH) == Z_STREAM_END);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

}  // namespace

TEST_CASE("aiconfigurator: gemm rows map to gemm calls; other dtypes are counted, not dropped") {
  aic::FileReport rep;
  const auto rows = read_text(gemm_header + gemm_row("bfloat16", 16, 4096, 8192, 0.05) +
                                  gemm_row("fp8", 1, 1024, 1024, 0.01) + gemm_row("fp8_block", 1, 1024, 1024, 0.02) +
                                  gemm_row("int4_wo", 1, 1024, 1024, 0.02),
                              &rep);
  CHECK(rep.table == "gemm");
  CHECK(rep.rows == 4);
  CHECK(rep.mapped == 3);
  REQUIRE(rows.size() == 3);
  const auto& g = std::get<aic::Call<kernels::Gemm>>(rows[0].call);
  CHECK(g.config.dtype == Dtype::bf16);
  CHECK(g.config.n == 4096);
  CHECK(g.config.k == 8192);
  CHECK(g.input.m == 16);
  CHECK(rows[0].backend == "sglang");
  CHECK(rows[0].time_ms == 0.05);
  CHECK(rows[0].provenance.source == "sglang_torch_linear");
  CHECK(rows[0].line == 2);
  CHECK(std::get<aic::Call<kernels::Gemm>>(rows[1].call).config.dtype == Dtype::fp8);
  // Block-scaled fp8 runs other kernels than per-tensor fp8: a dtype of its own.
  CHECK(std::get<aic::Call<kernels::Gemm>>(rows[2].call).config.dtype == Dtype::fp8_block);
  REQUIRE(rep.skips.reasons.size() == 1);
  CHECK(rep.skips.total() == 1);
  for (const auto& [why, e] : rep.skips.reasons) {
    CHECK(e.count == 1);
    CHECK(has(why, "int4_wo"));
    CHECK(has(e.first, "t.csv:"));
  }
}

TEST_CASE("aiconfigurator: attention and MLA tables, told apart by op_name") {
  aic::FileReport rep;
  const auto rows = read_text(
      attn_header +
          "SGLang,0.5.14,H100,context_attention,fa3,4,1024,8,1,128,1,bfloat16,bfloat16,0,0,0.5\n"
          "SGLang,0.5.14,H100,context_attention,fa3,4,1024,8,1,128,1,bfloat16,bfloat16,0,128,0.4\n"  // window
          "SGLang,0.5.14,H100,context_attention,fa3,4,1024,8,1,128,1,bfloat16,fp8,0,0,0.4\n"        // mixed
          "SGLang,0.5.14,H100,generation_attention,fa3,64,1,8,1,128,1,bfloat16,fp8,2047,0,0.05\n"
          "SGLang,0.5.14,H100,mystery_attention,fa3,64,1,8,1,128,1,bfloat16,fp8,2047,0,0.05\n",
      &rep);
  CHECK(rep.table == "attention");
  REQUIRE(rows.size() == 2);
  const auto& p = std::get<aic::Call<kernels::AttnPrefill>>(rows[0].call);
  CHECK(p.config.num_qo_heads == 8);
  CHECK(p.config.num_kv_heads == 1);
  CHECK(p.input.batch == 4);
  CHECK(p.input.prefix == 0);
  CHECK(p.input.append == 1024);
  CHECK(p.point == std::array<double, 2>{4, 1024});
  // A decode step at KV length step + 1 for each of the 64 requests.
  const auto& d = std::get<aic::Call<kernels::AttnDecode>>(rows[1].call);
  CHECK(d.config.kv_dtype == Dtype::fp8);
  CHECK(d.input.batch == 64);
  CHECK(d.input.total_kv == 64 * 2048);
  CHECK(rep.skips.total() == 3);
  bool saw_op = false;
  for (const auto& [why, e] : rep.skips.reasons) saw_op = saw_op || has(why, "op_name mystery_attention");
  CHECK(saw_op);

  const auto mla = read_text(
      "framework,version,device,op_name,kernel_source,mla_dtype,kv_cache_dtype,num_heads,batch_size,isl,tp_size,"
      "step,latency\n"
      "SGLang,0.5.14,H100,mla_context,fa,bfloat16,bfloat16,16,2,4096,8,0,1.5\n"
      "SGLang,0.5.14,H100,mla_context,fa,bfloat16,fp8,16,2,4096,8,0,1.4\n"
      "SGLang,0.5.14,H100,mla_generation,fa,bfloat16,fp8,16,32,1,8,1023,0.1\n");
  REQUIRE(mla.size() == 2);
  const auto& mp = std::get<aic::Call<kernels::MlaPrefill>>(mla[0].call);
  CHECK(mp.config.num_heads == 16);
  CHECK(mp.config.kv_lora_rank == 512);
  CHECK(mp.input.batch == 2);
  CHECK(mp.input.append == 4096);
  const auto& md = std::get<aic::Call<kernels::MlaDecode>>(mla[1].call);
  CHECK(md.config.dtype == Dtype::fp8);
  CHECK(md.input.total_kv == 32 * 1024);
}

TEST_CASE("aiconfigurator: MoE rows are one rank's fused module; NCCL and custom all-reduce") {
  aic::FileReport rep;
  const auto moe = read_text(
      "framework,version,device,op_name,kernel_source,moe_dtype,num_tokens,hidden_size,inter_size,topk,num_experts,"
      "moe_tp_size,moe_ep_size,distribution,latency\n"
      "SGLang,0.5.14,H100,moe,triton,bfloat16,1024,4096,1536,8,128,2,8,balanced,0.9\n"
      "SGLang,0.5.14,H100,moe,triton,bfloat16,1,4096,1536,8,128,1,32,balanced,0.05\n"
      "SGLang,0.5.14,H100,moe,triton,bfloat16,1024,4096,1536,8,128,1,8,power_law_1.2,1.1\n"
      "SGLang,0.5.14,H100,moe,marlin,int4_wo,1024,4096,1536,8,128,1,8,balanced,1.1\n"
      "SGLang,0.5.14,H100,moe,triton,fp8_block,1024,4096,1536,8,128,1,8,balanced,0.5\n"
      "SGLang,0.5.14,H100,moe,cutlass,fp8,1024,4096,1536,8,128,1,8,balanced,0.45\n"
      "SGLang,0.5.14,B200,moe,cutlass,nvfp4,1024,4096,1536,8,128,1,8,balanced,0.3\n"
      "SGLang,0.5.14,H100,moe,triton,bfloat16,1024,4096,1536,8,128,1,8,power_law_sampled_1.9,1.2\n"
      "SGLang,0.5.14,H100,moe,triton,w4a16_mxfp4,1024,2880,2880,4,128,1,1,balanced,1.3\n"
      "SGLang,0.5.14,B200,moe,trtllm,w4a8_mxfp4_mxfp8,1024,2880,2880,4,128,1,1,balanced,0.7\n",
      &rep);
  REQUIRE(moe.size() == 9);
  // The routing each row was timed under is part of its config: balanced, or a power law
  // costdsl binds (expert_load.hpp); the collector's other distributions are skipped.
  CHECK(std::get<aic::Call<kernels::FusedMoe>>(moe[0].call).config.expert_load == ExpertLoad::balanced);
  CHECK(std::get<aic::Call<kernels::FusedMoe>>(moe[2].call).config.expert_load == ExpertLoad::power_law_1_2);
  // Each weight format is its own table: W8A8 / W4A4 measure activations in the weights'
  // format; int4_wo is costdsl's int4 (W4A16) path.
  for (const auto& [i, d] : {std::pair{3, Dtype::int4}, std::pair{4, Dtype::fp8_block}, std::pair{5, Dtype::fp8},
                             std::pair{6, Dtype::fp4}}) {
    const auto& c = std::get<aic::Call<kernels::FusedMoe>>(moe[static_cast<std::size_t>(i)].call).config;
    CHECK(c.dtype == d);
    CHECK(c.weight_dtype == d);
  }
  // w4a16_mxfp4 (gpt-oss's experts as shipped): MXFP4 weights under bf16 activations;
  // w4a8_mxfp4_mxfp8 the same weights under MXFP8 activations, a table of its own (dtype fp8).
  const auto& w = std::get<aic::Call<kernels::FusedMoe>>(moe[7].call).config;
  CHECK(w.dtype == Dtype::bf16);
  CHECK(w.weight_dtype == Dtype::mxfp4);
  CHECK(profile_key(w) == std::vector<std::string>{"bf16", "2880", "2880", "128", "4", "mxfp4", "balanced"});
  const auto& w8 = std::get<aic::Call<kernels::FusedMoe>>(moe[8].call).config;
  CHECK(profile_key(w8) == std::vector<std::string>{"fp8", "2880", "2880", "128", "4", "mxfp4", "balanced"});
  const auto& f = std::get<aic::Call<kernels::FusedMoe>>(moe[0].call);
  CHECK(f.config.hidden == 4096);
  CHECK(f.config.moe_intermediate == 768);  // 1536 over moe_tp 2
  CHECK(f.config.num_experts == 16);        // 128 over ep 8
  CHECK(f.config.top_k == 8);
  CHECK(f.point[0] == 1024.0 * 8 / 8);      // tokens · top_k / ep rows on this rank
  // One token over 32 ranks: a quarter of a row on average (the model evaluates 1 row).
  const auto& q = std::get<aic::Call<kernels::FusedMoe>>(moe[1].call);
  CHECK(q.point[0] == 0.25);
  CHECK(q.input.rows == 1);
  CHECK(rep.skips.total() == 1);  // the sampled power-law row
  CHECK(rep.skips.reasons.begin()->first.starts_with("distribution power_law_sampled_1.9: not one of the expert loads"));

  const auto nccl = read_text(
      "framework,version,device,op_name,kernel_source,nccl_dtype,num_gpus,message_size,latency\n"
      "TRTLLM,2.29.2,H100,all_reduce,NCCL,half,8,16777216,0.1998\n"
      "TRTLLM,2.29.2,H100,all_reduce,NCCL,int8,8,16777216,0.15\n"
      "TRTLLM,2.29.2,H100,all_gather,NCCL,half,8,16777216,0.12\n",
      &rep);
  REQUIRE(nccl.size() == 2);  // the int8 all-reduce is skipped
  const auto& a = std::get<aic::Call<kernels::AllReduce>>(nccl[0].call);
  CHECK(a.config.num_gpus == 8);
  CHECK(a.input.bytes == 33554432);  // message_size counts 2-byte elements
  CHECK(nccl[0].backend == "nccl");
  // An all-gather's message is its gathered output (nccl-tests' size), as costdsl's.
  const auto& g = std::get<aic::Call<kernels::AllGather>>(nccl[1].call);
  CHECK(g.config.num_gpus == 8);
  CHECK(g.input.bytes == 33554432);
  CHECK(rep.skips.total() == 1);

  const auto custom = read_text(
      "framework,version,device,op_name,kernel_source,allreduce_dtype,num_gpus,message_size,latency,backend\n"
      "SGLang,0.5.14,H100,all_reduce,SGLang_CustomAllReduce_graph,bfloat16,8,1024,0.005,sglang_graph\n"
      "SGLang,0.5.14,H100,all_reduce,SGLang_CustomAllReduce_eager,bfloat16,8,1024,0.03,sglang_eager\n",
      &rep);
  REQUIRE(custom.size() == 1);
  CHECK(custom[0].backend == "custom");
  CHECK(rep.skips.total() == 1);
}

TEST_CASE("aiconfigurator: bad tables are errors naming file, line, column and rule; bad times are counted") {
  // A measurement table missing a column: the closest table kind and the missing column.
  CHECK(has(error_of("framework,gemm_dtype,m,n,latency\nSGLang,bfloat16,1,2,0.1\n"),
            "t.csv:1:1: missing column 'k' for an aiconfigurator gemm table"));
  // A non-numeric or negative shape cell.
  CHECK(has(error_of(gemm_header + "SGLang,0.5.14,H100,gemm,x,bfloat16,abc,8,8,0.1\n"),
            "t.csv:2:36: column 'm': 'abc' is not a whole number"));
  CHECK(has(error_of(gemm_header + "SGLang,0.5.14,H100,gemm,x,bfloat16,-4,8,8,0.1\n"), "column 'm': '-4' is negative"));
  CHECK(has(error_of(gemm_header + "SGLang,0.5.14,H100,gemm,x,bfloat16,4,8,8,fast\n"),
            "column 'latency': 'fast' is not a number"));
  CHECK(has(error_of(gemm_header + "SGLang,0.5.14,H100,gemm,x,bfloat16,4,8\n"),
            "t.csv:2:39: row has 8 cells but the header has 10 columns"));
  CHECK(has(error_of(""), "t.csv:1:1: empty file: no header line"));
  CHECK(has(error_of("a,\"b\"\n"), "quoted cells are not supported"));
  // NaN, negative, zero or infinite latency: a counted skip with its place.
  aic::FileReport rep;
  const auto rows = read_text(gemm_header + gemm_row("bfloat16", 1, 8, 8, 0.1) +
                                  "SGLang,0.5.14,H100,gemm,x,bfloat16,2,8,8,nan\n"
                                  "SGLang,0.5.14,H100,gemm,x,bfloat16,3,8,8,-0.5\n"
                                  "SGLang,0.5.14,H100,gemm,x,bfloat16,4,8,8,0\n",
                              &rep);
  CHECK(rows.size() == 1);
  CHECK(rep.skips.total() == 3);
  CHECK(rep.skips.reasons.count("latency NaN (a measured time must be finite and > 0)") == 1);
  CHECK(rep.skips.reasons.at("latency NaN (a measured time must be finite and > 0)").first == "t.csv:3:42");
  // A file that is not a measurement table (no latency column) is reported, not read.
  CHECK(read_text("name,value\nx,1\n", &rep).empty());
  CHECK(rep.table.empty());

  TempDir dir("bad");
  fs::create_directories(dir.path / "sub.csv");  // a directory where a table should be
  CHECK_THROWS_WITH_AS(aic::read_tables(dir.path), doctest::Contains("sub.csv: is a directory, not a measurement table"),
                       DataError);
  CHECK_THROWS_WITH_AS(aic::read_tables(dir.path / "missing"), doctest::Contains("no such file or directory"),
                       InputError);
  TempDir empty("empty");
  CHECK_THROWS_WITH_AS(aic::read_tables(empty.path), doctest::Contains("holds no .csv or .txt table"), InputError);
}

TEST_CASE("aiconfigurator: import writes strict profile tables, merges duplicates, holds lines out") {
  std::string text = gemm_header;
  for (int m : {1, 2, 4, 8, 16, 32, 64, 128, 256, 512})
    for (int n : {1024, 2048}) text += gemm_row("bfloat16", m, n, 4096, 0.01 * m * n / 1024);
  text += gemm_row("bfloat16", 4, 1024, 4096, 0.05);  // a second measurement of one point
  const auto rows = read_text(text);
  const aic::ImportResult all = aic::import_rows(rows, {}, "h100_sxm");
  REQUIRE(all.tables.count("gemm") == 1);
  REQUIRE(all.kinds.size() == 1);
  CHECK(all.kinds[0].rows == 20);
  CHECK(all.kinds[0].configs == 2);
  CHECK(all.kinds[0].merged == 1);
  const std::string& table = all.tables.at("gemm");
  CHECK(has(table, "dtype,n,k,input_dtype,m,backend,time_ms,framework,version,source\n"));
  // The duplicate keeps the median of 0.04 and 0.05. The first row names its provenance, the
  // rows below it of the same framework, version and kernel repeat it ("=").
  CHECK(has(table, "bf16,1024,4096,bf16,4,sglang,0.045,=,=,=\n"));
  CHECK(has(table, "source\nbf16,1024,4096,bf16,1,sglang,0.01,SGLang,0.5.14,sglang_torch_linear\n"));
  CHECK(std::count(table.begin(), table.end(), '\n') == 3 + 20);  // two comment lines, the header, the rows
  const ProfileTable t = load_profile_csv_text(table, "gemm.csv", profile_schema<kernels::Gemm>());
  CHECK(t.point_count() == 20);

  // Hold out 50% of the m lines: deterministic, never a config's smallest or largest m.
  aic::ImportOptions opt;
  opt.hold_out_percent = 50;
  const aic::ImportResult a = aic::import_rows(rows, opt, "h100_sxm");
  const aic::ImportResult b = aic::import_rows(rows, opt, "h100_sxm");
  CHECK(a.tables == b.tables);
  CHECK(a.kinds[0].held_out > 0);
  CHECK(a.held_out.size() == a.kinds[0].held_out);
  // Every point is written or held out (a duplicate's two rows go together).
  std::set<std::pair<std::uint64_t, std::uint64_t>> held_points;
  for (const aic::Row* r : a.held_out) {
    const auto& g = std::get<aic::Call<kernels::Gemm>>(r->call);
    held_points.insert({g.config.n.value, g.input.m});
  }
  CHECK(a.kinds[0].rows + held_points.size() == 20);
  for (const aic::Row* r : a.held_out) {
    const auto m = std::get<aic::Call<kernels::Gemm>>(r->call).input.m;
    CHECK(m != 1);
    CHECK(m != 512);
    CHECK_FALSE(has(a.tables.at("gemm"), fmt::format("bf16,{},4096,bf16,{},", std::get<aic::Call<kernels::Gemm>>(r->call).config.n.value, m)));
  }
}

TEST_CASE("aiconfigurator: kernels read the imported tables: measured leaves, configs between grid points") {
  std::string text = gemm_header;
  // A GEMM grid over n ∈ {1024, 2048}, k ∈ {4096, 8192}: time ∝ n·k (a weight-read-bound m).
  for (int m : {1, 16, 256})
    for (int n : {1024, 2048})
      for (int k : {4096, 8192}) text += gemm_row("bfloat16", m, n, k, 1e-6 * n * k / 64.0 * (1 + m / 256.0));
  // fp16 measured at one k only: a config between its n values still blends (k is exact).
  for (int m : {1, 16, 256})
    for (int n : {1024, 2048}) text += gemm_row("float16", m, n, 4096, 1e-6 * n * 4096 / 64.0 * (1 + m / 256.0));
  const auto rows = read_text(text);
  TempDir dir("kernels");
  const aic::ImportResult imp = aic::import_rows(rows, {}, "h100_sxm");
  fs::create_directories(dir.path / "h100_sxm");
  std::ofstream(dir.path / "h100_sxm" / "gemm.csv") << imp.tables.at("gemm");
  const Timing t = load_timing("h100", TimingMode::automatic, dir.path);

  const Kernel<kernels::Gemm> on_grid(t, {Dtype::bf16, 2048, 4096});
  const Metrics m1 = on_grid.eval({16});
  CHECK(m1.coverage == Coverage::none);  // measured
  CHECK(m1.time_ms() == doctest::Approx(1e-6 * 2048 * 4096 / 64.0 * (1 + 16 / 256.0)).epsilon(1e-6));
  CHECK(on_grid.config().n == 2048);
  // n = 1536 between 1024 and 2048: the linear blend of the two configs' tables.
  const Kernel<kernels::Gemm> between(t, {Dtype::bf16, 1536, 4096});
  CHECK(between.source() == "profile");
  const Metrics m2 = between.eval({16});
  CHECK(m2.coverage == Coverage::none);
  CHECK(m2.time_ms() == doctest::Approx(1e-6 * 1536 * 4096 / 64.0 * (1 + 16 / 256.0)).epsilon(1e-6));
  // n, k both off the grid (k = 6144): bilinear.
  CHECK(Kernel<kernels::Gemm>(t, {Dtype::bf16, 1536, 6144}).eval({1}).time_ms() ==
        doctest::Approx(1e-6 * 1536 * 6144 / 64.0 * (1 + 1 / 256.0)).epsilon(1e-6));
  // Past the grid (n = 4096): linear extrapolation from the outermost configs, flagged.
  const Metrics m3 = Kernel<kernels::Gemm>(t, {Dtype::bf16, 4096, 4096}).eval({16});
  CHECK(has(m3.coverage, Coverage::extrapolated));
  CHECK_FALSE(has(m3.coverage, Coverage::analytic));
  CHECK(m3.time_ms() == doctest::Approx(1e-6 * 4096 * 4096 / 64.0 * (1 + 16 / 256.0)).epsilon(1e-6));
  const Metrics m4 = Kernel<kernels::Gemm>(t, {Dtype::fp16, 1536, 4096}).eval({16});
  CHECK(m4.coverage == Coverage::none);
  CHECK(m4.time_ms() == doctest::Approx(1e-6 * 1536 * 4096 / 64.0 * (1 + 16 / 256.0)).epsilon(1e-6));
  // ...but a k it was never measured near has no direction to move in: the roofline.
  CHECK(has(Kernel<kernels::Gemm>(t, {Dtype::fp16, 1536, 8192}).eval({16}).coverage, Coverage::analytic));
  // Another dtype has no table: the roofline answers, flagged.
  CHECK(has(Kernel<kernels::Gemm>(t, {Dtype::fp8, 1024, 4096}).eval({16}).coverage, Coverage::analytic));
}

TEST_CASE("all_reduce: the custom backend answers only inside its measured range, NCCL beyond") {
  TempDir dir("allreduce");
  fs::create_directories(dir.path / "h100_sxm");
  // NCCL measured 1 KiB .. 64 MiB; custom 1 KiB .. 1 MiB, and only on 8 GPUs.
  std::string table = "num_gpus,bytes,backend,time_ms\n";
  for (double b = 1024; b <= 64.0 * 1048576; b *= 4) table += fmt::format("8,{},nccl,{}\n", b, 0.015 + b / 300e6);
  for (double b = 1024; b <= 1048576; b *= 4) table += fmt::format("8,{},custom,{}\n", b, 0.004 + b / 200e6);
  std::ofstream(dir.path / "h100_sxm" / "all_reduce.csv") << table;
  const Timing t = load_timing("h100", TimingMode::automatic, dir.path);
  const Kernel<kernels::AllReduce> ar(t, {8});
  const Metrics small = ar.eval({65536});
  CHECK(ar.backends()[small.backend] == "custom");
  CHECK(small.time_ms() == doctest::Approx(0.004 + 65536 / 200e6));
  // 4 MiB is past the custom table: it is not extrapolated, NCCL answers, no flag.
  const Metrics big = ar.eval({4194304});
  CHECK(ar.backends()[big.backend] == "nccl");
  CHECK(big.coverage == Coverage::none);
  // 4 GPUs: no custom table for that group and no NCCL one either: the roofline.
  CHECK(has(Kernel<kernels::AllReduce>(t, {4}).eval({65536}).coverage, Coverage::analytic));
}

TEST_CASE("aiconfigurator: a .csv.gz table reads as its plain twin; a damaged one is an error naming the file") {
  std::string text = gemm_header;
  for (int m : {1, 2, 4, 8, 16, 32, 64, 128, 256, 512})
    for (int n : {1024, 2048, 4096}) text += gemm_row("bfloat16", m, n, 4096, 0.001 * m + n / 1e6);
  TempDir dir("gz");
  dir.write("plain.csv", text);
  const std::string gz = gzip(text);
  REQUIRE(gz.size() > 64);
  dir.write("packed.csv.gz", gz);
  std::vector<aic::Row> plain_rows, gz_rows;
  const aic::FileReport plain = aic::read_table_file(dir.path / "plain.csv", plain_rows);
  const aic::FileReport packed = aic::read_table_file(dir.path / "packed.csv.gz", gz_rows);
  CHECK(packed.table == "gemm");
  CHECK(packed.rows == plain.rows);
  CHECK(packed.mapped == 30);
  REQUIRE(gz_rows.size() == plain_rows.size());
  for (std::size_t i = 0; i < gz_rows.size(); ++i) {
    CHECK(aic::keyed(gz_rows[i]).config == aic::keyed(plain_rows[i]).config);
    CHECK(aic::keyed(gz_rows[i]).point == aic::keyed(plain_rows[i]).point);
    CHECK(gz_rows[i].time_ms == plain_rows[i].time_ms);
    CHECK(gz_rows[i].line == plain_rows[i].line);
  }
  // Gzip is told by its magic bytes, not the name; several members read as one text (cat a.gz b.gz).
  dir.write("renamed.csv", gz);
  std::vector<aic::Row> renamed;
  CHECK(aic::read_table_file(dir.path / "renamed.csv", renamed).mapped == 30);
  const std::size_t half = text.find('\n', text.size() / 2) + 1;
  dir.write("members.csv.gz", gzip(text.substr(0, half)) + gzip(text.substr(half)));
  std::vector<aic::Row> members;
  CHECK(aic::read_table_file(dir.path / "members.csv.gz", members).mapped == 30);
  // The directory reader takes .csv.gz beside .csv.
  CHECK(aic::read_tables(dir.path).rows.size() == 4 * 30);

  // Cut short (a partial download): an error naming the file, never a shorter table.
  TempDir bad("gz_bad");
  bad.write("cut.csv.gz", gz.substr(0, gz.size() / 2));
  CHECK_THROWS_WITH_AS(aic::read_tables(bad.path), doctest::Contains("cut.csv.gz: truncated gzip stream after"),
                       DataError);
  bad.write("cut.csv.gz", gz.substr(0, gz.size() - 4));  // only the trailer's length is missing
  const std::string whole_text = fmt::format("cut.csv.gz: truncated gzip stream after {} bytes", text.size());
  CHECK_THROWS_WITH_AS(aic::read_tables(bad.path), doctest::Contains(whole_text.c_str()), DataError);
  // A flipped byte: zlib's CRC check (or its block decoder) names it.
  std::string flipped = gz;
  flipped[gz.size() / 2] = static_cast<char>(flipped[gz.size() / 2] ^ 0x55);
  bad.write("cut.csv.gz", flipped);
  CHECK_THROWS_WITH_AS(aic::read_tables(bad.path), doctest::Contains("cut.csv.gz: corrupt gzip stream"), DataError);
  // Garbage after the last member is not a member.
  bad.write("cut.csv.gz", gz + "trailing junk");
  CHECK_THROWS_WITH_AS(aic::read_tables(bad.path), doctest::Contains("incorrect header check"), DataError);
  // The bound on the text: a small file that expands past it is refused.
  CHECK_THROWS_WITH_AS(costdsl::detail::gunzip(gzip(std::string(1 << 20, 'x')), "bomb.gz", 1 << 16),
                       doctest::Contains("bomb.gz: gzip stream decompresses to more than 65536 bytes"), DataError);
}

TEST_CASE("aiconfigurator: one framework per file; rows keep their framework as backend; --framework selects") {
  const std::string trt_row = "TRTLLM,1.3.0rc20,H100,gemm,trtllm_gemm,bfloat16,16,4096,8192,0.04\n";
  const std::string vllm_row = "VLLM,0.24.0,H100,gemm,vllm_gemm,bfloat16,16,4096,8192,0.045\n";
  // SGLang then TRT-LLM rows in one file: the second framework's row is named.
  CHECK(has(error_of(gemm_header + gemm_row("bfloat16", 16, 4096, 8192, 0.05) + trt_row),
            "t.csv:3:1: framework 'TRTLLM', but the file's rows from line 2 are 'SGLang': one framework per file"));
  // Versions may differ within a file: each row keeps its own.
  aic::FileReport rep;
  const auto two = read_text(gemm_header + trt_row + "TRTLLM,1.3.0rc23,H100,gemm,x,bfloat16,32,4096,8192,0.05\n", &rep);
  REQUIRE(two.size() == 2);
  CHECK(two[0].backend == "trtllm");
  CHECK(two[1].provenance.version == "1.3.0rc23");
  CHECK(rep.framework == "trtllm");
  CHECK(rep.versions.size() == 2);

  TempDir dir("frameworks");
  dir.write("gemm_sglang.csv", gemm_header + gemm_row("bfloat16", 16, 4096, 8192, 0.05));
  dir.write("gemm_trtllm.csv.gz", gzip(gemm_header + trt_row));
  dir.write("gemm_vllm.csv.gz", gzip(gemm_header + vllm_row));
  dir.write("nccl.csv", "framework,version,device,op_name,kernel_source,nccl_dtype,num_gpus,message_size,latency\n"
                        "TRTLLM,2.29.2,H100,all_reduce,NCCL,half,8,1048576,0.038\n");
  const aic::ReadResult all = aic::read_tables(dir.path);
  std::set<std::string> backends;
  for (const aic::Row& r : all.rows) backends.insert(r.backend);
  CHECK(backends == std::set<std::string>{"nccl", "sglang", "trtllm", "vllm"});
  // Only TRT-LLM's tables, and NCCL's (every framework's collective).
  aic::ReadOptions opt;
  opt.frameworks = {"trtllm"};
  const aic::ReadResult trt = aic::read_tables(dir.path, opt);
  backends.clear();
  for (const aic::Row& r : trt.rows) backends.insert(r.backend);
  CHECK(backends == std::set<std::string>{"nccl", "trtllm"});
  for (const aic::FileReport& f : trt.files) CHECK(f.selected == (f.framework == "trtllm" || f.table == "nccl"));
  // A framework's tables for some kinds only: vLLM's GEMMs are not asked for (its fused MoE
  // is), so its GEMM file is read and every row counted as skipped, with the flag that said so.
  aic::ReadOptions some;
  some.frameworks = {"sglang", "vllm"};
  some.framework_kinds["vllm"] = {"fused_moe"};
  const aic::ReadResult kinds = aic::read_tables(dir.path, some);
  backends.clear();
  for (const aic::Row& r : kinds.rows) backends.insert(r.backend);
  CHECK(backends == std::set<std::string>{"nccl", "sglang"});
  for (const aic::FileReport& f : kinds.files)
    if (f.framework == "vllm") {
      CHECK(f.mapped == 0);
      CHECK(f.skips.reasons.count("kind gemm: not asked for (--framework vllm:fused_moe)") == 1);
    }
  // The imported table: the TRT-LLM GEMM is a backend the gemm kind considers.
  const aic::ImportResult imp = aic::import_rows(trt.rows, {}, "h100_sxm");
  CHECK(has(imp.tables.at("gemm"), "bf16,4096,8192,bf16,16,trtllm,0.04,TRTLLM,1.3.0rc20,trtllm_gemm\n"));
  const auto gemm_backends = kernels::Gemm::default_backends();
  CHECK(std::find(gemm_backends.begin(), gemm_backends.end(), "trtllm") != gemm_backends.end());
}

TEST_CASE("aiconfigurator: vLLM's MLA op names, TRT-LLM's custom all-reduce; other aiconfigurator tables not read") {
  const auto mla = read_text(
      "framework,version,device,op_name,kernel_source,mla_dtype,kv_cache_dtype,num_heads,batch_size,isl,tp_size,"
      "step,latency\n"
      "VLLM,0.14.0,H100,context_mla,fa,bfloat16,bfloat16,16,2,4096,8,0,1.5\n"
      "VLLM,0.14.0,H100,generation_mla,fa,bfloat16,fp8,16,32,1,8,1023,0.1\n");
  REQUIRE(mla.size() == 2);
  CHECK(std::holds_alternative<aic::Call<kernels::MlaPrefill>>(mla[0].call));
  CHECK(std::holds_alternative<aic::Call<kernels::MlaDecode>>(mla[1].call));
  CHECK(mla[0].backend == "vllm");
  // TRT-LLM's custom all-reduce names no CUDA-graph path (its collector times in a graph).
  const auto ar = read_text(
      "framework,version,device,op_name,kernel_source,allreduce_dtype,num_gpus,message_size,latency,implementation\n"
      "TRTLLM,1.3.0rc20,H100,all_reduce,TRTLLM,bfloat16,8,1024,0.005,trtllm\n");
  REQUIRE(ar.size() == 1);
  CHECK(ar[0].backend == "custom");
  // A MoE table's other ops (SGLang's wide-EP paths) are counted, not read as the fused MoE.
  aic::FileReport rep;
  CHECK(read_text("framework,version,device,op_name,kernel_source,moe_dtype,num_tokens,hidden_size,inter_size,topk,"
                  "num_experts,moe_tp_size,moe_ep_size,distribution,latency\n"
                  "SGLang,0.5.10,H100,moe_context,deepep,fp8_block,1024,7168,2048,8,256,1,8,balanced,0.9\n",
                  &rep)
            .empty());
  CHECK(rep.skips.reasons.count("op_name moe_context: not an op of a moe table") == 1);
  // A whole-module table carries the MLA columns, but its rows time more than the kernel.
  CHECK(read_text("framework,version,device,op_name,kernel_source,model,architecture,mla_dtype,kv_cache_dtype,"
                  "gemm_type,num_heads,batch_size,isl,tp_size,step,latency\n"
                  "SGLang,0.5.10,H100,mla_context,fa,dsv3,x,bfloat16,bfloat16,bf16,16,2,4096,8,0,1.5\n",
                  &rep)
            .empty());
  CHECK(rep.table == "attention_module");
  CHECK_FALSE(rep.modelled);
  CHECK(rep.rows == 0);
}

namespace {

const std::string gdn_header =
    "framework,version,device,op_name,kernel_source,phase,batch_size,seq_len,num_tokens,d_model,d_conv,num_k_heads,"
    "head_k_dim,num_v_heads,head_v_dim,model_name,latency\n";
// One SGLang GDN row: per-rank heads 2 k / 4 v of 128 (Qwen3.5-9B at tp 8), conv width 4.
std::string gdn_row(const std::string& source, const std::string& phase, std::uint64_t batch, std::uint64_t seq_len,
                    double ms, std::uint64_t num_k_heads = 2, std::uint64_t num_v_heads = 4,
                    std::uint64_t num_tokens = 0) {
  return fmt::format("SGLang,0.5.14,NVIDIA H100 80GB HBM3,gdn,{},{},{},{},{},4096,4,{},128,{},128,Qwen/Qwen3.5-9B,{}\n",
                     source, phase, batch, seq_len, num_tokens ? num_tokens : batch * seq_len, num_k_heads, num_v_heads,
                     ms);
}

}  // namespace

TEST_CASE("aiconfigurator: GDN rows map by kernel_source to the four gdn kinds; the rest are counted") {
  aic::FileReport rep;
  const auto rows = read_text(
      gdn_header + gdn_row("causal_conv1d_fn", "context", 2, 100, 0.01) +
          gdn_row("causal_conv1d_update", "generation", 8, 1, 0.002) +
          gdn_row("chunk_gated_delta_rule", "context", 2, 100, 0.05) +
          gdn_row("chunk_gated_delta_rule_flashinfer", "context", 4, 64, 0.04) +
          gdn_row("chunk_gated_delta_rule_triton", "context", 1, 32, 0.03) +
          gdn_row("fused_recurrent_gated_delta_rule", "generation", 16, 1, 0.006) +
          gdn_row("fused_recurrent_gated_delta_rule_packed_decode", "generation", 8, 1, 0.005) +
          gdn_row("mystery_scan", "context", 2, 100, 0.05) +                                // unknown kernel
          gdn_row("flashinfer_gated_delta_rule_decode", "generation", 8, 1, 0.004) +        // bf16 state
          gdn_row("causal_conv1d_fn", "generation", 8, 1, 0.002) +                          // wrong phase
          gdn_row("fused_recurrent_gated_delta_rule", "generation", 8, 2, 0.004) +          // 2 tokens a request
          gdn_row("chunk_gated_delta_rule", "context", 2, 100, 0.05, 2, 4, 150) +           // num_tokens ≠ b·l
          gdn_row("chunk_gated_delta_rule", "context", 2, 100, 0.05, 4, 6),                 // 6 v over 4 k heads
      &rep);
  CHECK(rep.table == "linear_attention");
  CHECK(rep.modelled);
  CHECK(rep.rows == 13);
  CHECK(rep.mapped == 7);
  REQUIRE(rows.size() == 7);

  const auto& cp = std::get<aic::Call<kernels::GdnConv1dPrefill>>(rows[0].call);
  CHECK(cp.config.dtype == Dtype::bf16);
  CHECK(cp.config.num_k_heads == 2);
  CHECK(cp.config.head_k_dim == 128);
  CHECK(cp.config.num_v_heads == 4);
  CHECK(cp.config.head_v_dim == 128);
  CHECK(cp.config.d_conv == 4);
  CHECK(cp.input.batch == 2);
  CHECK(cp.input.seq_len == 100);
  CHECK(cp.point == std::array<double, 2>{2, 100});
  const auto& cd = std::get<aic::Call<kernels::GdnConv1dDecode>>(rows[1].call);
  CHECK(cd.input.batch == 8);
  CHECK(cd.config.d_conv == 4);
  for (std::size_t i : {2, 3, 4}) CHECK(std::holds_alternative<aic::Call<kernels::GdnPrefill>>(rows[i].call));
  const auto& p = std::get<aic::Call<kernels::GdnPrefill>>(rows[3].call);
  CHECK(p.input.batch == 4);
  CHECK(p.input.seq_len == 64);
  CHECK(rows[3].provenance.source == "chunk_gated_delta_rule_flashinfer");
  for (std::size_t i : {5, 6}) CHECK(std::holds_alternative<aic::Call<kernels::GdnDecode>>(rows[i].call));
  CHECK(std::get<aic::Call<kernels::GdnDecode>>(rows[5].call).input.batch == 16);
  for (const aic::Row& r : rows) {
    CHECK(r.backend == "sglang");
    CHECK(r.table == aic::Table::gdn);
    CHECK(r.provenance.framework == "SGLang");
    CHECK(r.provenance.version == "0.5.14");
  }

  CHECK(rep.skips.total() == 6);
  auto reason = [&](std::string_view needle) {
    for (const auto& [why, e] : rep.skips.reasons)
      if (has(why, needle)) return e.count;
    return std::size_t{0};
  };
  CHECK(reason("kernel_source mystery_scan: no GDN kind runs it") == 1);
  CHECK(reason("kernel_source flashinfer_gated_delta_rule_decode: a bf16 recurrent state") == 1);
  CHECK(reason("phase generation for kernel_source causal_conv1d_fn: it runs in the context phase") == 1);
  CHECK(reason("seq_len 2 in generation: one token per request is a decode step") == 1);
  CHECK(reason("num_tokens 150 is not batch_size 2 × seq_len 100") == 1);
  CHECK(reason("gdn_prefill config rejected: gdn_prefill: num_v_heads 6 must be a multiple of num_k_heads 4") == 1);

  // KDA shares GDN's columns: its files are reported as a table costdsl has no kind for,
  // not read (no row counted); Mamba2's have columns of their own.
  aic::FileReport kda;
  std::string kda_text = gdn_header + gdn_row("fused_recurrent_kda", "generation", 8, 1, 0.004);
  kda_text.replace(kda_text.find(",gdn,"), 5, ",kda,");
  CHECK(read_text(kda_text, &kda).empty());
  CHECK(kda.table == "linear_attention");
  CHECK_FALSE(kda.modelled);
  CHECK(kda.rows == 0);
  aic::FileReport mamba;
  CHECK(read_text("framework,version,device,op_name,kernel_source,phase,batch_size,seq_len,num_tokens,d_model,d_state,"
                  "d_conv,nheads,head_dim,n_groups,chunk_size,model_name,latency\n"
                  "TRTLLM,1.3.0rc20,H100,mamba2,causal_conv1d_fn,context,1,1,1,8192,128,4,64,64,8,256,m,0.01\n",
                  &mamba)
            .empty());
  CHECK(mamba.table == "linear_attn_other");
  CHECK_FALSE(mamba.modelled);
}

TEST_CASE("aiconfigurator: imported GDN tables are what the gdn kernels read, measured and scaled") {
  std::string text = gdn_header;
  // A 3 × 3 prefill grid, time linear in each axis, and a decode line.
  for (std::uint64_t b : {1, 2, 4})
    for (std::uint64_t l : {64, 256, 1024})
      text += gdn_row("chunk_gated_delta_rule", "context", b, l, 0.02 + 1e-5 * double(b * l));
  for (std::uint64_t b : {1, 4, 16})
    text += gdn_row("fused_recurrent_gated_delta_rule_packed_decode", "generation", b, 1, 0.004 + 0.001 * double(b));
  const auto rows = read_text(text);
  REQUIRE(rows.size() == 12);
  const aic::ImportResult imp = aic::import_rows(rows, {}, "h100_sxm");
  REQUIRE(imp.tables.count("gdn_prefill") == 1);
  REQUIRE(imp.tables.count("gdn_decode") == 1);
  CHECK(has(imp.tables.at("gdn_prefill"), "dtype,num_k_heads,head_k_dim,num_v_heads,head_v_dim,batch,seq_len,"
                                          "backend,time_ms,framework,version,source\n"));
  CHECK(has(imp.tables.at("gdn_prefill"), "bf16,2,128,4,128,2,256,sglang,0.02512,=,=,=\n"));
  CHECK(has(imp.tables.at("gdn_prefill"),
            "source\nbf16,2,128,4,128,1,64,sglang,0.02064,SGLang,0.5.14,chunk_gated_delta_rule\n"));
  CHECK(has(imp.tables.at("gdn_decode"), "bf16,2,128,4,128,4,sglang,0.008,=,=,="));

  TempDir dir("gdn");
  fs::create_directories(dir.path / "h100_sxm");
  for (const auto& [kind, table] : imp.tables) std::ofstream(dir.path / "h100_sxm" / (kind + ".csv")) << table;
  const Timing t = load_timing("h100", TimingMode::automatic, dir.path);

  const kernels::GdnPrefill::Config cfg{Dtype::bf16, 2, 128, 4, 128};
  const Kernel<kernels::GdnPrefill> prefill(t, cfg);
  CHECK(prefill.source() == "profile");
  const Metrics on_grid = prefill.eval({2, 256});
  CHECK(on_grid.coverage == Coverage::none);
  CHECK(on_grid.time_ms() == doctest::Approx(0.02512));
  CHECK(prefill.backends()[on_grid.backend] == "sglang");
  // Between grid lines, linearly on both axes.
  CHECK(prefill.eval({3, 512}).time_ms() == doctest::Approx(0.02 + 1e-5 * 3 * 512));
  const Kernel<kernels::GdnDecode> decode(t, {Dtype::bf16, 2, 128, 4, 128});
  CHECK(decode.eval({8}).coverage == Coverage::none);
  CHECK(decode.eval({8}).time_ms() == doctest::Approx(0.004 + 0.001 * 8));
  // A layout no table holds (twice the heads, e.g. tp 4 instead of 8) answers from the
  // measured one, scaled by the roofline's time ratio; the decode kind has no such rule.
  const Metrics scaled = Kernel<kernels::GdnPrefill>(t, {Dtype::bf16, 4, 128, 8, 128}).eval({2, 256});
  CHECK(has(scaled.coverage, Coverage::scaled));
  CHECK_FALSE(has(scaled.coverage, Coverage::analytic));
  CHECK(scaled.time_ms() > on_grid.time_ms());
  CHECK(has(Kernel<kernels::GdnDecode>(t, {Dtype::bf16, 4, 128, 8, 128}).eval({8}).coverage, Coverage::analytic));
  // Keeping only other kinds' configs (--for-archs: no shipped arch binds a GDN kind)
  // writes no GDN table at all, the rows counted as not needed.
  aic::ImportOptions only_gemm;
  only_gemm.wanted["gemm"] = {{"bf16", "4096", "4096"}};
  const aic::ImportResult none = aic::import_rows(rows, only_gemm, "h100_sxm");
  CHECK(none.tables.empty());
  REQUIRE(none.kinds.size() == 2);
  CHECK(none.kinds[0].kind == "gdn_decode");
  CHECK(none.kinds[0].not_wanted == 3);
  CHECK(none.kinds[1].not_wanted == 9);
  // No conv table was imported: the conv kinds take the roofline.
  CHECK(has(Kernel<kernels::GdnConv1dPrefill>(t, {Dtype::bf16, 2, 128, 4, 128, 4}).eval({2, 256}).coverage,
            Coverage::analytic));
}

namespace {

const std::string dsa_header =
    "framework,version,device,op_name,kernel_source,model,architecture,mla_dtype,kv_cache_dtype,gemm_type,num_heads,"
    "batch_size,isl,tp_size,step,compress_ratio,latency\n";
// One of aiconfigurator's GLM-5 DSA kernel rows (SGLang, kernel level), on `device`.
std::string dsa_row(const std::string& op, const std::string& source, std::uint64_t batch, std::uint64_t isl,
                    std::uint64_t step, double ms, const std::string& device = "NVIDIA B200",
                    std::uint64_t compress_ratio = 1) {
  return fmt::format("SGLang,kernel-level,{},{},{},nvidia/GLM-5.2-NVFP4,GlmMoeDsaForCausalLM,bfloat16,fp8_e4m3,"
                     "fp8_block,64,{},{},1,{},{},{}\n",
                     device, op, source, batch, isl, step, compress_ratio, ms);
}

}  // namespace

TEST_CASE("aiconfigurator: GLM-5's sparse attention rows map to dsa_sparse_mla; the indexer's tables are counted") {
  aic::FileReport rep;
  const auto rows = read_text(dsa_header + dsa_row("glm5_dsa_attn_module", "flash_mla_sparse_fwd", 2, 1024, 0, 0.8) +
                                  dsa_row("glm5_dsa_attn_module", "flash_mla_sparse_fwd", 64, 1, 8191, 0.04) +
                                  dsa_row("glm5_dsa_attn_module", "flash_mla_sparse_fwd", 64, 1, 8191, 0.04,
                                          "NVIDIA H100 80GB HBM3") +
                                  dsa_row("glm5_dsa_attn_module", "tilelang_sparse_fwd", 2, 1024, 0, 0.9) +
                                  dsa_row("glm5_dsa_attn_module", "flash_mla_sparse_fwd", 2, 1024, 0, 0.8, "NVIDIA B200", 4) +
                                  dsa_row("glm5_mqa_logits_module", "deep_gemm.fp8_mqa_logits", 2, 1024, 0, 0.01),
                              &rep);
  CHECK(rep.table == "dsa_kernel");
  CHECK(rep.modelled);
  REQUIRE(rows.size() == 3);
  const auto& prefill = std::get<aic::Call<kernels::DsaSparseMla>>(rows[0].call);
  // 64 heads at tp 1, run as Blackwell's 128-head tile; GLM-5's latent and top-2048.
  CHECK(prefill.config.dtype == Dtype::fp8);
  CHECK(prefill.config.num_heads == 128);
  CHECK(prefill.config.kv_lora_rank == 512);
  CHECK(prefill.config.qk_rope_head_dim == 64);
  CHECK(prefill.config.topk == 2048);
  CHECK(prefill.input.batch == 2);
  CHECK(prefill.input.prefix == 0);
  CHECK(prefill.input.append == 1024);
  CHECK(prefill.point == std::array<double, 1>{2048});
  CHECK(std::get<aic::Call<kernels::DsaSparseMla>>(rows[1].call).point == std::array<double, 1>{64});
  CHECK(std::get<aic::Call<kernels::DsaSparseMla>>(rows[2].call).config.num_heads == 64);  // Hopper's tile
  CHECK(rows[0].table == aic::Table::dsa_sparse_attention);
  CHECK(rows[0].backend == "sglang");
  CHECK(rep.skips.total() == 3);
  auto reason = [&](std::string_view needle) {
    for (const auto& [why, e] : rep.skips.reasons)
      if (has(why, needle)) return e.count;
    return std::size_t{0};
  };
  CHECK(reason("kernel_source tilelang_sparse_fwd: dsa_sparse_mla is FlashMLA's flash_mla_sparse_fwd") == 1);
  CHECK(reason("compress_ratio 4: a compressed KV") == 1);
  CHECK(reason("op_name glm5_mqa_logits_module: the indexer's logits / top-k kinds read no table") == 1);

  // Imported, the kind reads it: rows of one query count merge into their median.
  const auto more = read_text(dsa_header + dsa_row("glm5_dsa_attn_module", "flash_mla_sparse_fwd", 1, 1, 1023, 0.030) +
                              dsa_row("glm5_dsa_attn_module", "flash_mla_sparse_fwd", 1, 1, 65535, 0.034) +
                              dsa_row("glm5_dsa_attn_module", "flash_mla_sparse_fwd", 1, 1, 131071, 0.032) +
                              dsa_row("glm5_dsa_attn_module", "flash_mla_sparse_fwd", 1, 4096, 0, 2.0));
  const aic::ImportResult imp = aic::import_rows(more, {}, "b200_sxm");
  REQUIRE(imp.tables.count("dsa_sparse_mla") == 1);
  CHECK(imp.kinds[0].merged == 2);
  CHECK(has(imp.tables.at("dsa_sparse_mla"), "dtype,num_heads,kv_lora_rank,qk_rope_head_dim,topk,queries,backend"));
  CHECK(has(imp.tables.at("dsa_sparse_mla"), "fp8,128,512,64,2048,1,sglang,0.032,SGLang,kernel-level,flash_mla_sparse_fwd\n"));
  TempDir dir("dsa");
  fs::create_directories(dir.path / "b200_sxm");
  for (const auto& [kind, table] : imp.tables) std::ofstream(dir.path / "b200_sxm" / (kind + ".csv")) << table;
  const Timing t = load_timing("b200", TimingMode::automatic, dir.path);
  const Kernel<kernels::DsaSparseMla> k(t, {Dtype::fp8, 128, 512, 64, 2048});
  CHECK(k.source() == "profile");
  CHECK(k.eval({1, 99999, 1}).time_ms() == doctest::Approx(0.032));
  CHECK(k.eval({2, 0, 2048}).time_ms() == doctest::Approx(2.0));  // 4096 queries: the measured point
  CHECK(k.eval({1, 0, 2048}).time_ms() == doctest::Approx(0.032 + (2.0 - 0.032) * 2047 / 4095));
}

namespace {

// One framework's quantize table row: aiconfigurator's compute_scale or scale_matrix.
std::string quantize_row(const std::string& framework, const std::string& op, int m, int k, double ms) {
  return fmt::format("{},0.24.0,NVIDIA B200,{},src,{},{},fp8,{}\n", framework, op, m, k, ms);
}
const std::string quantize_header = "framework,version,device,op_name,kernel_source,m,k,quant_dtype,latency\n";

}  // namespace

TEST_CASE("aiconfigurator: fp8 GEMMs with fp8 input are the measured sequence less its own framework's quantize") {
  TempDir dir("fp8_input");
  // vLLM's quantize on a 2 × 2 grid of (m, k): compute_scale (dynamic less static), scale_matrix (static).
  std::string q = quantize_header;
  for (int m : {1, 64})
    for (int k : {1024, 4096}) {
      q += quantize_row("VLLM", "compute_scale", m, k, 0.001 * (1 + m / 64.0) * k / 1024);
      q += quantize_row("VLLM", "scale_matrix", m, k, 0.002 * (1 + m / 64.0) * k / 1024);
    }
  dir.write("computescale_vllm.csv", q);
  // SGLang's GEMM table (its own compute_scale rows read zero: vLLM's quantize stands in) and
  // a TensorRT-LLM table with no quantize table beside it.
  dir.write("gemm_sglang.csv", gemm_header + gemm_row("fp8", 1, 1024, 1024, 0.010) +
                                   gemm_row("fp8", 64, 1024, 4096, 0.040) + gemm_row("fp8", 32, 1024, 2048, 0.030) +
                                   gemm_row("fp8", 1, 256, 4096, 0.012) + gemm_row("bfloat16", 1, 1024, 1024, 0.009) +
                                   gemm_row("fp8", 1, 2048, 1024, 0.02) + gemm_row("fp8", 32, 2048, 1024, 0.03) +
                                   gemm_row("fp8", 64, 2048, 1024, 0.04));
  dir.write("gemm_trtllm.csv",
            "framework,version,device,op_name,kernel_source,gemm_dtype,m,n,k,latency\n"
            "TRTLLM,1.3.0rc20,NVIDIA B200,gemm,torch_flow,fp8,1,1024,1024,0.02\n");
  aic::ReadResult read = aic::read_tables(dir.path);
  const std::size_t measured = read.rows.size();
  CHECK(measured == 9);
  const Roofline rf(GpuCatalog::load_default().find("b200"), load_default_roofline_params());
  aic::add_fp8_input_gemms(read, rf);
  std::vector<const aic::Row*> derived;
  for (const aic::Row& r : read.rows)
    if (r.derived) derived.push_back(&r);
  REQUIRE(derived.size() == 7);
  const auto call = [](const aic::Row* r) { return std::get<aic::Call<kernels::Gemm>>(r->call); };
  for (const aic::Row* r : derived) {
    CHECK(call(r).config.input_dtype == Dtype::fp8);
    CHECK(call(r).config.dtype == Dtype::fp8);
    CHECK(r->backend == "sglang");
    CHECK(has(r->provenance.source, "sglang_torch_linear less vLLM 0.24.0 quantize"));
  }
  // On the grid: m 1, k 1024 takes compute_scale + scale_matrix there off.
  CHECK(derived[0]->time_ms == doctest::Approx(0.010 - 0.003 * (1 + 1 / 64.0)));
  CHECK(derived[1]->time_ms == doctest::Approx(0.040 - 0.003 * 2 * 4));
  // Between grid points: linear in m at each k, then in k (m 32, k 2048).
  const double at_1024 = 0.003 * (1 + 32 / 64.0), at_4096 = 0.003 * (1 + 32 / 64.0) * 4;
  CHECK(derived[2]->time_ms == doctest::Approx(0.030 - (at_1024 + (2048 - 1024) / 3072.0 * (at_4096 - at_1024))));
  // A narrow GEMM whose quantize is about all of its sequence: at its hardware bound, counted.
  const kernels::Gemm::Config narrow{Dtype::fp8, 256, 4096, Dtype::fp8};
  CHECK(derived[3]->time_ms == doctest::Approx(kernels::Gemm::lower_bound_s(rf, narrow, {1}) * 1e3));
  const auto report = [&](const std::string& file) {
    return *std::find_if(read.files.begin(), read.files.end(),
                         [&](const aic::FileReport& f) { return fs::path(f.file).filename() == file; });
  };
  CHECK(report("gemm_sglang.csv").derived == 7);
  CHECK(report("gemm_sglang.csv").derived_at_bound == 1);
  // TensorRT-LLM's table with no quantize table of its framework read: not derived, counted.
  std::size_t trt_skipped = 0;
  for (const auto& [reason, e] : report("gemm_trtllm.csv").skips.reasons)
    if (has(reason, "no trtllm compute_scale and scale_matrix tables")) trt_skipped += e.count;
  CHECK(trt_skipped == 1);

  // Imported, a derived row is held out with the row it derives from (its id leaves the
  // constant-default column out), and the held-out tables list measured rows only.
  aic::ImportOptions opt;
  opt.hold_out_percent = 100;  // every line but a config's smallest and largest m
  const aic::ImportResult imp = aic::import_rows(read.rows, opt, "b200_sxm");
  REQUIRE(imp.held_out.size() == 1);  // m 32 of n 2048: the measured row alone
  CHECK_FALSE(imp.held_out[0]->derived);
  CHECK(call(imp.held_out[0]).input.m == 32);
  const std::string& table = imp.tables.at("gemm");
  CHECK_FALSE(has(table, "fp8,2048,1024,bf16,32,"));
  CHECK_FALSE(has(table, "fp8,2048,1024,fp8,32,"));
  CHECK(has(table, "fp8,2048,1024,fp8,64,"));
  CHECK(has(table, "dtype,n,k,input_dtype,m,backend,time_ms,framework,version,source\n"));
  CHECK(has(table, "fp8,1024,1024,fp8,1,sglang,0.006953125,"));
  CHECK(has(table, "fp8,1024,1024,bf16,1,sglang,0.01,"));
  // The kernel reads the derived rows where its input arrives quantized.
  fs::create_directories(dir.path / "out" / "b200_sxm");
  std::ofstream(dir.path / "out" / "b200_sxm" / "gemm.csv") << table;
  const Timing t = load_timing("b200", TimingMode::profile, dir.path / "out");
  CHECK(Kernel<kernels::Gemm>(t, {Dtype::fp8, 1024, 1024, Dtype::fp8}).eval({1}).time_ms() ==
        doctest::Approx(0.006953125));
  CHECK(Kernel<kernels::Gemm>(t, {Dtype::fp8, 1024, 1024}).eval({1}).time_ms() == doctest::Approx(0.010));
}

TEST_CASE("aiconfigurator: quantize tables are read whatever --framework asks for; other quant dtypes counted") {
  aic::FileReport rep;
  const auto rows = read_text(quantize_header + quantize_row("SGLang", "compute_scale", 1, 1024, 0.0) +
                                  quantize_row("SGLang", "scale_matrix", 1, 1024, 0.007) +
                                  "SGLang,0.5.14,NVIDIA B200,scale_matrix,src,1,1024,int8,0.1\n",
                              &rep);
  CHECK(rows.empty());  // no kernel kind of their own
  CHECK(rep.table == "quantization_scale");
  CHECK(rep.quantize.size() == 2);
  CHECK(rep.quantize[0].compute_scale);
  CHECK(rep.quantize[0].ms == 0.0);  // max(0, dynamic - static): a measurement
  CHECK(rep.quantize[1].ms == 0.007);
  CHECK(rep.skips.total() == 1);
  aic::ReadOptions only_trt;
  only_trt.frameworks = {"trtllm"};
  std::vector<aic::Row> out;
  const aic::FileReport r2 =
      aic::read_table_text(quantize_header + quantize_row("VLLM", "scale_matrix", 1, 1024, 0.002), "q.csv", out, only_trt);
  CHECK(r2.selected);
  CHECK(r2.quantize.size() == 1);
}

TEST_CASE("aiconfigurator: the quantize grid: linear inside, scaled by the elements quantized outside") {
  aic::detail::QuantizeGrid g;
  CHECK(g.empty());
  CHECK_FALSE(g.at(1, 1024).has_value());
  for (std::uint64_t m : {16u, 64u})
    for (std::uint64_t k : {1024u, 4096u}) {
      g.add(true, m, k, 1e-6 * double(m * k));      // compute_scale ∝ m·k
      g.add(false, m, k, 2e-6 * double(m * k) + 1);  // scale_matrix: a launch floor and ∝ m·k
    }
  CHECK_FALSE(g.empty());
  const auto want = [](double m, double k) { return 3e-6 * m * k + 1; };
  CHECK(*g.at(16, 1024) == doctest::Approx(want(16, 1024)));
  CHECK(*g.at(40, 1024) == doctest::Approx(want(40, 1024)));    // linear in m
  CHECK(*g.at(64, 2560) == doctest::Approx(want(64, 2560)));    // linear in k
  CHECK(*g.at(40, 2560) == doctest::Approx(want(40, 2560)));    // both
  // Past the grid: the edge's time times the ratio of rows (or of k).
  CHECK(*g.at(128, 1024) == doctest::Approx(want(64, 1024) * 2));
  CHECK(*g.at(8, 1024) == doctest::Approx(want(16, 1024) / 2));
  CHECK(*g.at(64, 8192) == doctest::Approx(want(64, 4096) * 2));
  CHECK(*g.at(64, 512) == doctest::Approx(want(64, 1024) / 2));
  // One table alone is no quantize time.
  aic::detail::QuantizeGrid half;
  half.add(false, 1, 1024, 0.002);
  CHECK(half.empty());
  CHECK_FALSE(half.at(1, 1024).has_value());
}
